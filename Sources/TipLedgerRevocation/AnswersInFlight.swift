// SPDX-License-Identifier: GPL-3.0-or-later
internal import Dispatch
internal import Synchronization
internal import TipLedgerCore

/// The statuses being asked of responders, one request per certificate at a time: whoever
/// finds a certificate's status neither kept nor asked for asks, and whoever comes for it while
/// that request is out waits for its answer rather than sending another. Without this, every
/// thread verifying when a status expires (or on the first tokens after a start) sends the same
/// request, and a responder that hangs holds each of them for a timeout of its own. Safe to
/// share between threads.
final class AnswersInFlight: Sendable {
    /// One request out, and its answer once it came.
    private final class Request: Sendable {
        /// Entered while the request is out; waiters wait for it.
        let done = DispatchGroup()
        let status = Mutex<RevocationStatus?>(nil)
    }

    private let requests = Mutex<[OCSPCache.Key: Request]>([:])
    private let waits = Atomic<Int>(0)

    /// How many answers were another's request's, counted as each began to wait.
    var shared: Int { waits.load(ordering: .relaxed) }

    /// The status of `key`: `asking`'s answer when no request for it is out, else that
    /// request's, waited for (an answer as of when that request was made, at most its timeout
    /// before the waiter's own time). `asking` runs on the calling thread, with no lock held.
    func answer(for key: OCSPCache.Key, asking: () -> RevocationStatus) -> RevocationStatus {
        let (request, asks) = requests.withLock { requests in
            if let out = requests[key] { return (out, false) }
            let request = Request()
            request.done.enter()
            requests[key] = request
            return (request, true)
        }
        guard asks else {
            waits.add(1, ordering: .relaxed)
            request.done.wait()
            // Set before `done` was left, and never cleared.
            return request.status.withLock { $0 }!
        }
        let status = asking()
        request.status.withLock { $0 = status }
        // Whoever comes after this finds the answer kept (or asks anew when it was not to be
        // kept), as after any other request.
        _ = requests.withLock { $0.removeValue(forKey: key) }
        request.done.leave()
        return status
    }
}
