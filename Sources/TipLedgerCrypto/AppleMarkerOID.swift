// SPDX-License-Identifier: GPL-3.0-or-later

/// The extensions that mark Apple's App Store signing certificates: a verifier requires them
/// (see docs/verification.md, step 5), and the test PKI puts them on its certificates.
public enum AppleMarkerOID {
    /// On every App Store receipt-signing leaf.
    public static let receiptSigningLeaf = "1.2.840.113635.100.6.11.1"
    /// On the Apple WWDR intermediate.
    public static let wwdrIntermediate = "1.2.840.113635.100.6.2.1"
}
