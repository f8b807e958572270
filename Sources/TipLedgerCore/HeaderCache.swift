// SPDX-License-Identifier: GPL-3.0-or-later
internal import Synchronization
internal import TipLedgerCrypto

#if canImport(Glibc)
    internal import Glibc
#endif

/// Decoded JWS headers by their exact base64url text.
///
/// All tokens from one signing chain share one ~4 KB header (the `x5c` certificates), which
/// costs more to decode and parse than the rest of the token. A few entries cover every chain
/// in use; lookups compare the whole text, so a hit is always the same header. Bounded and safe
/// to share between threads.
final class HeaderCache: Sendable {
    /// A header seen before: its decoding, and SHA-256 partway through every token that starts
    /// with it (the header and the `.` after it).
    struct Known: Sendable {
        let header: JSONObject
        let tokenPrefix: SHA256Prefix
    }

    private struct Entry {
        let text: [UInt8]
        let known: Known
    }

    let capacity: Int
    private let entries = Mutex<[Entry]>([])

    init(capacity: Int = 8) {
        self.capacity = capacity
    }

    /// The header decoded from exactly `segment`, if it was seen before.
    func header(for segment: UnsafeBufferPointer<UInt8>) -> Known? {
        guard let start = segment.baseAddress, !segment.isEmpty else { return nil }
        return entries.withLock { entries in
            for entry in entries where entry.text.count == segment.count {
                let same = entry.text.withUnsafeBufferPointer { memcmp($0.baseAddress!, start, segment.count) == 0 }
                if same { return entry.known }
            }
            return nil
        }
    }

    /// Remembers `header` as the decoding of `segment`, dropping the oldest entry when full;
    /// returns what later lookups of `segment` will find.
    @discardableResult
    func remember(_ header: JSONObject, for segment: UnsafeBufferPointer<UInt8>) -> Known {
        let dot: [UInt8] = [UInt8(ascii: ".")]
        let known = dot.withUnsafeBytes {
            Known(header: header, tokenPrefix: SHA256Prefix(UnsafeRawBufferPointer(segment), $0))
        }
        // Headers of legitimate tokens are a few KB; keep larger ones out of the cache.
        guard segment.count <= 16 * 1024 else { return known }
        let entry = Entry(text: Array(segment), known: known)
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeFirst() }
            entries.append(entry)
        }
        return known
    }

    var count: Int { entries.withLock { $0.count } }
}
