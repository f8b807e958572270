// SPDX-License-Identifier: GPL-3.0-or-later

/// Answers one request; the server calls it on its worker threads, several at once.
///
/// It must return (the server cannot interrupt it, and `HTTPServer.stop` waits for it) and it
/// should not block for long: while it runs, the other connections of the same worker thread
/// wait. A crash in it cannot be caught; a thrown or internal error should become a 500 response
/// built with `HTTPResponse.error`, never a message with internal details.
public typealias HTTPHandler = @Sendable (HTTPRequest) -> HTTPResponse

/// Answers one request now or later (`HTTPAnswer`), as `HTTPHandler` does otherwise: a handler
/// whose answer waits on something other than the CPU (a commit shared with other requests)
/// returns `.later` and answers from another thread, so the worker goes on to other requests.
public typealias HTTPAnswerer = @Sendable (HTTPRequest) -> HTTPAnswer
