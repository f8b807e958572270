// SPDX-License-Identifier: GPL-3.0-or-later

/// The state of one request while libmicrohttpd delivers it piece by piece: what its request
/// line held before libmicrohttpd parsed it, its head and body so far and, once answered, what
/// was sent (for the access log).
///
/// Ownership: created by the URI log callback, which libmicrohttpd calls once per request as
/// soon as its request line is read, and stored in the request's `con_cls` slot with
/// `Unmanaged.passRetained` (that +1 belongs to libmicrohttpd's slot); the access-handler calls
/// borrow it with `takeUnretainedValue`; the completion callback, which libmicrohttpd calls for
/// every request the URI log callback saw, clears the slot and balances the retain with
/// `takeRetainedValue`. libmicrohttpd calls all of them for one request on the worker thread
/// that owns the connection, one at a time, so the mutable fields need no lock.
final class RequestContext {
    /// The bytes at the start of the request target, as it came, that a request line may hold
    /// (`HTTPSyntax.isRequestLineByte`), up to the first it may not or the target's end.
    let targetBytesAllowed: Int

    /// What the first access-handler call reads once the headers are in.
    struct Head {
        let method: String
        let path: String
        let remoteAddress: String
        /// The header fields, read once when they are all in.
        let headers: HTTPHeaders
        let started: ContinuousClock.Instant
    }

    /// Nil until the headers are in: a request that ends before (libmicrohttpd refused its
    /// head itself, or the client went away) never reached the handler and is not logged.
    var head: Head?
    /// The body kept so far; emptied when it passes the limit.
    var body: [UInt8] = []
    /// Every body byte received, kept or not.
    var receivedBytes = 0
    /// The body passed the limit (declared or actual): the answer will be 413.
    var tooLarge = false
    /// The status queued, once a response was.
    var status: Int?
    /// The handler was called: the answer is its own, not the server's.
    var handled = false
    /// Bytes in the queued response's body.
    var responseBytes = 0
    /// The answer the handler promised; the connection is suspended until it comes.
    var deferred: DeferredResponse?

    init(targetBytesAllowed: Int) {
        self.targetBytesAllowed = targetBytesAllowed
    }
}
