// SPDX-License-Identifier: GPL-3.0-or-later
internal import Synchronization
internal import TipLedgerCrypto

#if canImport(Glibc)
    internal import Glibc
#endif

/// Chains already validated, keyed by the exact bytes of the `x5c[0]` and `x5c[1]` text, so a
/// repeated chain is neither decoded nor rebuilt; only its validity at each payload's time is
/// checked again.
///
/// Sound because a chain's validation depends on the time only through the certificates'
/// validity periods (revocation, checked online, is `RevocationCheck`'s, after the cache). Bounded; safe to share between threads.
final class ChainCache: Sendable {
    struct Key: Hashable, Sendable {
        let leaf: String
        let intermediate: String

        // Hashing 2.5 KB of base64 per lookup costs more than the rest of the lookup; the last
        // 64 characters (inside each certificate's signature) already differ between
        // certificates. Equality still compares the whole text.
        func hash(into hasher: inout Hasher) {
            hasher.combine(leaf.utf8.count)
            hasher.combine(intermediate.utf8.count)
            for text in [leaf, intermediate] {
                let tail = text.utf8.suffix(64)
                if tail.withContiguousStorageIfAvailable({ hasher.combine(bytes: UnsafeRawBufferPointer($0)) }) == nil {
                    for byte in tail { hasher.combine(byte) }
                }
            }
        }

        /// Equal when both texts are the same bytes, as the hash assumes.
        static func == (lhs: Key, rhs: Key) -> Bool {
            sameBytes(lhs.leaf, rhs.leaf) && sameBytes(lhs.intermediate, rhs.intermediate)
        }
    }

    struct Entry: Sendable {
        let chain: ValidatedChain
        let leafKey: PublicKey
        /// Latest `notBefore` of the three certificates, seconds since 1970.
        let validFrom: Int64
        /// Earliest `notAfter` of the three; the chain is valid while time < this.
        let validUntil: Int64
        /// `x5c[2]` texts already seen to be certificates with this chain.
        var thirdCertificates: [String]

        init(chain: ValidatedChain, leafKey: PublicKey, thirdCertificate: String) {
            self.chain = chain
            self.leafKey = leafKey
            let certificates = [chain.leaf, chain.intermediate, chain.root]
            self.validFrom = certificates.map(\.notBefore).max()!
            self.validUntil = certificates.map(\.notAfter).min()!
            self.thirdCertificates = [thirdCertificate]
        }

        /// Mirrors OpenSSL's check (`X509_cmp_time`): notBefore ≤ t < notAfter for each.
        func isValid(atSeconds seconds: Int64) -> Bool { validFrom <= seconds && seconds < validUntil }

        /// Whether exactly the text `third` was seen to be a certificate with this chain.
        func hasSeenThirdCertificate(_ third: String) -> Bool {
            thirdCertificates.contains { sameBytes($0, third) }
        }
    }

    /// Whether `a` and `b` are the same UTF-8 bytes. `String`'s `==` is canonical equivalence,
    /// under which different texts are equal (a Kelvin sign, U+212A, equals "K"): text that is
    /// not base64 would then pass for a certificate's.
    static func sameBytes(_ a: String, _ b: String) -> Bool {
        let (left, right) = (a.utf8, b.utf8)
        guard left.count == right.count else { return false }
        let compared = left.withContiguousStorageIfAvailable { left in
            right.withContiguousStorageIfAvailable { right in
                left.isEmpty || memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0
            }
        }
        return (compared ?? nil) ?? left.elementsEqual(right)
    }

    /// Most chains kept; Apple rotates leaves every year or two, so a handful is typical.
    let capacity: Int
    private let entries = Mutex<[Key: Entry]>([:])

    init(capacity: Int = 64) {
        self.capacity = capacity
    }

    func entry(for key: Key) -> Entry? {
        entries.withLock { $0[key] }
    }

    func store(_ entry: Entry, for key: Key) {
        entries.withLock { entries in
            if entries[key] == nil && entries.count >= capacity, let victim = entries.keys.first {
                entries.removeValue(forKey: victim)
            }
            entries[key] = entry
        }
    }

    /// Remembers that `third` was seen to be a certificate alongside the chain at `key`.
    func noteThirdCertificate(_ third: String, for key: Key) {
        entries.withLock { entries in
            guard var entry = entries[key], entry.thirdCertificates.count < 4 else { return }
            entry.thirdCertificates.append(third)
            entries[key] = entry
        }
    }

    var count: Int { entries.withLock { $0.count } }
}
