// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore

/// What became of one signed payload taken in from the App Store Server API: refused by a check
/// or by the ledger, or verified and, unless in a dry run, recorded.
public enum PayloadOutcome: Sendable {
    case rejected(VerificationError)
    /// Verified; `recording` is nil in a dry run.
    case verified(VerifiedPayload, recording: RecordResult?)

    public var isRejected: Bool {
        if case .rejected = self { true } else { false }
    }
}
