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
    private struct Entry {
        let text: [UInt8]
        let known: KnownHeader
    }

    let capacity: Int
    private let entries = Mutex<[Entry]>([])

    init(capacity: Int = 8) {
        self.capacity = capacity
    }

    /// What was learnt about exactly `segment`, if it was seen before.
    func header(for segment: UnsafeBufferPointer<UInt8>) -> KnownHeader? {
        entries.withLock { entries in Self.index(of: segment, in: entries).map { entries[$0].known } }
    }

    /// Remembers `header` as the decoding of `segment`, dropping the oldest entry when full;
    /// returns what later lookups of `segment` will find.
    func remember(_ header: JSONObject, for segment: UnsafeBufferPointer<UInt8>) -> KnownHeader {
        let known = KnownHeader(header, segment: segment)
        // Headers of legitimate tokens are a few KB; keep larger ones out of the cache.
        guard segment.count <= 16 * 1024 else { return known }
        let entry = Entry(text: Array(segment), known: known)
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeFirst() }
            entries.append(entry)
        }
        return known
    }

    /// Records that `known`, the entry for `segment`, names a chain validated as `chain`; later
    /// tokens with this header skip the header and chain checks (see `KnownHeader.chain`).
    func resolve(_ known: KnownHeader, for segment: UnsafeBufferPointer<UInt8>, chain: ChainCache.Entry) {
        let resolved = KnownHeader(
            header: known.header, digest: known.digest, tokenPrefix: known.tokenPrefix, chain: chain)
        entries.withLock { entries in
            guard let index = Self.index(of: segment, in: entries), entries[index].known === known else { return }
            entries[index] = Entry(text: entries[index].text, known: resolved)
        }
    }

    var count: Int { entries.withLock { $0.count } }

    private static func index(of segment: UnsafeBufferPointer<UInt8>, in entries: [Entry]) -> Int? {
        guard let start = segment.baseAddress, !segment.isEmpty else { return nil }
        return entries.firstIndex { entry in
            entry.text.count == segment.count
                && entry.text.withUnsafeBufferPointer { memcmp($0.baseAddress!, start, segment.count) == 0 }
        }
    }
}

/// A header seen before: its decoding, its SHA-256 (under which the ledger stores it once),
/// SHA-256 partway through every token that starts with it (the header and the `.` after it),
/// and the chain its `x5c` was validated as, once it was.
///
/// Immutable, so threads share it without copying its parts; resolving a chain replaces the
/// cache's entry with a new instance.
final class KnownHeader: Sendable {
    let header: JSONObject
    /// SHA-256 of the header part exactly as received.
    let digest: [UInt8]
    let tokenPrefix: SHA256Prefix
    /// Set once this header passed the header checks (algorithm, `crit`, the `x5c` entries) and
    /// its three certificates were validated as a chain with Apple's roles; all of that depends
    /// only on the header's bytes and the verifier, so only the chain's validity at each
    /// payload's own time is left to check.
    let chain: ChainCache.Entry?

    init(header: JSONObject, digest: [UInt8], tokenPrefix: SHA256Prefix, chain: ChainCache.Entry?) {
        self.header = header
        self.digest = digest
        self.tokenPrefix = tokenPrefix
        self.chain = chain
    }

    /// `header`, decoded from `segment`, seen for the first time.
    convenience init(_ header: JSONObject, segment: UnsafeBufferPointer<UInt8>) {
        let dot: [UInt8] = [UInt8(ascii: ".")]
        let raw = UnsafeRawBufferPointer(segment)
        let tokenPrefix = dot.withUnsafeBytes { SHA256Prefix(raw, $0) }
        self.init(header: header, digest: SHA256.hash(raw), tokenPrefix: tokenPrefix, chain: nil)
    }
}
