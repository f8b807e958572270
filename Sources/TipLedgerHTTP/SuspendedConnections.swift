// SPDX-License-Identifier: GPL-3.0-or-later
internal import CMicroHTTPD
internal import Synchronization

/// Connections whose request waits for a `DeferredResponse`, suspended in libmicrohttpd so that
/// no worker thread waits with them, and resumed when the answer comes or the server stops.
///
/// libmicrohttpd's rules: a connection is suspended only from the access handler; it may be
/// resumed from any thread, once; after it is resumed, the access handler is called again for
/// the same request, which then sends the answer. "It is an API violation to call
/// MHD_stop_daemon while having suspended connections": `resumeAll` resumes the rest first and
/// refuses further suspensions. One lock orders suspending, resuming and stopping, so a
/// connection is resumed exactly once and never after `resumeAll`.
final class SuspendedConnections: Sendable {
    private struct State {
        var stopping = false
        /// By the connection's address.
        var waiting: [Int: DeferredResponse] = [:]
    }

    private let state = Mutex(State())

    /// Suspends `connection` until `deferred` is answered; false, leaving it as it is, once the
    /// server stops (answer at once then). Called from the access handler.
    func suspend(_ connection: OpaquePointer, until deferred: DeferredResponse) -> Bool {
        let key = Int(bitPattern: connection)
        let suspended = state.withLock { state in
            guard !state.stopping else { return false }
            MHD_suspend_connection(connection)
            state.waiting[key] = deferred
            return true
        }
        guard suspended else { return false }
        // At once when the answer came already.
        deferred.whenAnswered { [self] in resume(key) }
        return true
    }

    private func resume(_ key: Int) {
        state.withLock { state in
            // Gone when `resumeAll` resumed it already.
            guard state.waiting.removeValue(forKey: key) != nil, let connection = OpaquePointer(bitPattern: key) else {
                return
            }
            MHD_resume_connection(connection)
        }
    }

    /// Resumes every suspended connection, its answer abandoned (a 503 is sent), and refuses
    /// further suspensions: before `MHD_stop_daemon`.
    func resumeAll() {
        state.withLock { state in
            state.stopping = true
            for (key, deferred) in state.waiting {
                _ = deferred.abandon()
                if let connection = OpaquePointer(bitPattern: key) { MHD_resume_connection(connection) }
            }
            state.waiting.removeAll()
        }
    }
}
