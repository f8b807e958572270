// SPDX-License-Identifier: GPL-3.0-or-later
internal import COpenSSL

/// Comparisons whose duration does not depend on where secrets differ.
public enum ConstantTime {
    /// Whether `given` equals `secret`, in time independent of their contents and of `given`'s
    /// length: both are hashed to 32 bytes first, then compared with OpenSSL's `CRYPTO_memcmp`.
    public static func equals(_ given: some Collection<UInt8>, _ secret: some Collection<UInt8>) -> Bool {
        let a = SHA256.hash(given)
        let b = SHA256.hash(secret)
        return a.withUnsafeBytes { left in
            b.withUnsafeBytes { right in CRYPTO_memcmp(left.baseAddress, right.baseAddress, 32) == 0 }
        }
    }
}
