/**
 * Ink options shared by the REPL and the render benchmark. 60 fps caps the redraw cost while text
 * streams and keeps a typed key on screen within one frame.
 */
export const RENDER_MAX_FPS = 60;
