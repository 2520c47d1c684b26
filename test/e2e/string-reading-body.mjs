// Preloaded (NODE_OPTIONS=--import) into a spawned keen by the tests of the AWS SDK's JsonCodec2
// warning: when the HTTP handler asks whether a request body is a Buffer, the body is first read
// with a string method, as a handler of a later SDK might. The body is the SDK's own codec output
// (a Uint8Array that also answers string methods); reading it so makes the SDK print its warning.
const isBuffer = Buffer.isBuffer;
Buffer.isBuffer = function (value) {
  if (value instanceof Uint8Array && !isBuffer.call(Buffer, value) && typeof value.substring === 'function') value.includes('"messages"');
  return isBuffer.call(Buffer, value);
};
