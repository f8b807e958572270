// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore

/// A stored token that no longer verifies.
public struct ReverifyFailure: Sendable {
    public let evidenceId: Int64
    public let kind: String
    public let environment: String
    public let transactionId: String?
    public let notificationUUID: String?
    public let error: VerificationError
}
