// Preloaded into a real MCP server that listens with no host (server-everything's HTTP modes call
// app.listen(PORT)), so that in tests it listens on 127.0.0.1 only, never on every interface.
const net = require("node:net");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const callback = args.find((a) => typeof a === "function");
  if (typeof args[0] === "number" || (typeof args[0] === "string" && /^\d+$/.test(args[0]))) {
    return listen.call(this, { port: Number(args[0]), host: "127.0.0.1" }, callback);
  }
  if (args[0] && typeof args[0] === "object" && args[0].path === undefined) args[0] = { ...args[0], host: "127.0.0.1" };
  return listen.apply(this, args);
};
