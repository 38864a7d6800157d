// Loaded with --import into a gateway started with --allow-natives-syntax: on SIGUSR2 it prints
// whether String.prototype still has V8's fast properties (a library that subclasses String can
// leave it in dictionary mode, which slows every string method in the process).
const fast = new Function('return %HasFastProperties(String.prototype)');
process.on('SIGUSR2', () => {
  process.stdout.write(`string-prototype-fast=${fast()}\n`);
});
