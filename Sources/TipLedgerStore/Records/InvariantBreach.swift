// SPDX-License-Identifier: GPL-3.0-or-later

/// A row that breaks one of the ledger's own rules: the file is sound, but what it holds does
/// not add up (it was changed by other means than tipledger, or by a fault SQLite did not see).
public struct InvariantBreach: Sendable, Equatable {
    /// "transaction" or "notification": the kind of row.
    public let kind: String
    public let environment: String
    public let transactionId: String?
    public let notificationUUID: String?
    /// What is wrong, in words.
    public let problem: String
}
