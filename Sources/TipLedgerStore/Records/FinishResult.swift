// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore

/// What finishing a transaction id did in one environment: an id found in several environments
/// (Xcode numbers its transactions from 1 in every test session) has one result for each, an id
/// found in none has one `notFound` result without an environment.
public struct FinishResult: Sendable, Equatable {
    public let transactionId: String
    public let environment: AppStoreEnvironment?
    public let outcome: FinishOutcome

    init(transactionId: String, environment: AppStoreEnvironment?, outcome: FinishOutcome) {
        self.transactionId = transactionId
        self.environment = environment
        self.outcome = outcome
    }
}
