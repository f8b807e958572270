// SPDX-License-Identifier: GPL-3.0-or-later
internal import COpenSSL

/// A failure inside the cryptography layer, with OpenSSL's own reason where it gave one.
public struct CryptoError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What was being attempted, e.g. "parse certificate".
    let operation: String
    /// OpenSSL's error queue at the time of the failure, oldest first; empty when none.
    public let reason: String

    public var description: String {
        reason.isEmpty ? "\(operation) failed" : "\(operation) failed: \(reason)"
    }

    /// Builds an error from the calling thread's OpenSSL error queue and clears the queue, so a
    /// later call never reports a stale reason.
    static func openSSL(_ operation: String) -> CryptoError {
        var reasons: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            if let text = ERR_reason_error_string(code) {
                reasons.append(String(cString: text))
            } else {
                reasons.append("error \(code)")
            }
        }
        return CryptoError(operation: operation, reason: reasons.joined(separator: "; "))
    }

    /// Drops whatever a failed OpenSSL call left on this thread's error queue.
    static func clearQueue() {
        ERR_clear_error()
    }
}
