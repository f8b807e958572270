// SPDX-License-Identifier: GPL-3.0-or-later
internal import Synchronization
internal import TipLedgerCore

/// Revocation statuses kept until a time: a responder's answer until its `nextUpdate`, a missing
/// answer for a short while. Bounded; safe to share between threads.
final class OCSPCache: Sendable {
    /// A certificate and its issuer, by their SHA-256 fingerprints.
    struct Key: Hashable, Sendable {
        let certificate: [UInt8]
        let issuer: [UInt8]
    }

    private struct Entry {
        let status: RevocationStatus
        /// Seconds since 1970; the status holds while the time is before this.
        let until: Int64
    }

    let capacity: Int
    private let entries = Mutex<[Key: Entry]>([:])

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The status kept for `key`, if it still holds at `seconds`.
    func status(for key: Key, atSeconds seconds: Int64) -> RevocationStatus? {
        entries.withLock { entries in
            guard let entry = entries[key] else { return nil }
            return seconds < entry.until ? entry.status : nil
        }
    }

    /// Keeps `status` for `key` until `until`; when full, drops the entry that ends first (an
    /// expired one, if any).
    func keep(_ status: RevocationStatus, for key: Key, until: Int64) {
        entries.withLock { entries in
            if entries[key] == nil && entries.count >= capacity,
                let victim = entries.min(by: { $0.value.until < $1.value.until })?.key
            {
                entries.removeValue(forKey: victim)
            }
            entries[key] = Entry(status: status, until: until)
        }
    }

    var count: Int { entries.withLock { $0.count } }
}
