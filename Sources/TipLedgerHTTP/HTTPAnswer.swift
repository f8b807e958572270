// SPDX-License-Identifier: GPL-3.0-or-later

/// What an `HTTPAnswerer` gives for a request: the response now, or a promise of one.
public enum HTTPAnswer: Sendable {
    case now(HTTPResponse)
    /// The answer comes later, from another thread; meanwhile the connection waits without
    /// holding a worker thread.
    case later(DeferredResponse)
}
