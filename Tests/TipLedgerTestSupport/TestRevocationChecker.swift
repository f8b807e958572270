// SPDX-License-Identifier: GPL-3.0-or-later
internal import Synchronization
public import TipLedgerCore
public import TipLedgerCrypto

/// A revocation checker that answers from a table instead of a responder: the status given for
/// a certificate's exact DER bytes, else `good`. For tests of what the verifier and the routes
/// do with each status; the real responder's tests are in TipLedgerRevocationTests.
public final class TestRevocationChecker: RevocationChecker {
    private let statuses: [[UInt8]: RevocationStatus]
    private let asked = Mutex(RevocationCounts())

    public init(_ statuses: [(Certificate, RevocationStatus)]) {
        self.statuses = Dictionary(statuses.map { ($0.0.derEncoded, $0.1) }, uniquingKeysWith: { $1 })
    }

    public func status(
        of certificate: Certificate, issuedBy issuer: Certificate, in chain: ValidatedChain, at date: AppleDate
    ) -> RevocationStatus {
        let status = statuses[certificate.derEncoded] ?? .good
        asked.withLock { counts in
            counts.requests += 1
            if case .revoked = status { counts.revoked += 1 }
            if case .unavailable = status { counts.unavailable += 1 }
        }
        return status
    }

    public var counts: RevocationCounts { asked.withLock { $0 } }
}
