/**
 * lowlight with its common grammars only (~37 languages): imported statically here so the bundler
 * drops the other ~150 highlight.js grammars (~900 KB) that `import('lowlight')` would keep.
 */
export { common, createLowlight } from 'lowlight';
