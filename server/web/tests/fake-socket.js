// A WebSocket made up for the tests of the pages' connections (socket.js and its users):
// it records what is sent, and the test opens, feeds and closes it.

/** A WebSocket that records what is sent and is opened, fed and closed by the test. */
export class FakeSocket {
  static OPEN = 1;
  static CLOSED = 3;
  static made = [];

  constructor(url) {
    this.url = url;
    this.sent = [];
    this.readyState = 0;
    FakeSocket.made.push(this);
  }

  send(text) {
    this.sent.push(JSON.parse(text));
  }

  close() {
    if (this.readyState === FakeSocket.CLOSED) return;
    this.readyState = FakeSocket.CLOSED;
    this.onclose?.();
  }

  open() {
    this.readyState = FakeSocket.OPEN;
    this.onopen();
  }

  receive(message) {
    this.onmessage({ data: JSON.stringify(message) });
  }
}
