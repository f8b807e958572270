// SPDX-License-Identifier: GPL-3.0-or-later

/// The state of one request while libmicrohttpd delivers it piece by piece: its body so far and,
/// once answered, what was sent (for the access log).
///
/// Ownership: created on the first access-handler call and stored in the request's `con_cls`
/// slot with `Unmanaged.passRetained` (that +1 belongs to libmicrohttpd's slot); later calls
/// borrow it with `takeUnretainedValue`; the completion callback clears the slot and balances
/// the retain with `takeRetainedValue`. libmicrohttpd calls all of them for one request on the
/// worker thread that owns the connection, one at a time, so the mutable fields need no lock.
final class RequestContext {
    let method: String
    let path: String
    let remoteAddress: String
    /// The header fields, read once when they are all in.
    let headers: HTTPHeaders
    let started: ContinuousClock.Instant
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

    init(
        method: String, path: String, remoteAddress: String, headers: HTTPHeaders, started: ContinuousClock.Instant
    ) {
        self.method = method
        self.path = path
        self.remoteAddress = remoteAddress
        self.headers = headers
        self.started = started
    }
}
