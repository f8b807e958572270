// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore

/// A consumption request as the ledger holds it: what Apple asked about, what the ledger knows
/// of the transaction to answer with, and the answer sent, if any.
public struct ConsumptionRequestRecord: Sendable, Equatable {
    /// The CONSUMPTION_REQUEST notification's UUID, which keys the request.
    public let notificationUUID: String
    public let environment: AppStoreEnvironment
    public let transactionId: String
    /// Apple's `consumptionRequestReason`, e.g. `UNINTENDED_PURCHASE`.
    public let reason: String?
    public let requested: AppleDate
    /// Apple waits for an answer until then (12 hours after the request).
    public let deadline: AppleDate
    /// The transaction's state; nil when the ledger does not hold the transaction.
    public let state: TransactionState?
    /// Whether the app finished (delivered) the transaction.
    public let finished: Bool
    /// Apple's product type of the transaction (`Consumable`, ...), when known.
    public let productType: String?
    /// Whether a REFUND or REFUND_DECLINED signed no earlier than the request shows Apple decided.
    public let decided: Bool
    /// The answer sent, or being sent; nil when none was.
    public let answer: ConsumptionAnswer?

    /// Whether Apple took or refused an answer: a request is answered once.
    public var isAnswered: Bool { answer?.appleStatus != nil }
}

/// An answer sent to a consumption request (Send Consumption Information).
public struct ConsumptionAnswer: Sendable, Equatable {
    /// The JSON body sent.
    public let body: String
    public let sent: AppleDate
    /// Apple's HTTP status: 202 when it took the answer; nil while it is being sent, or when no
    /// answer came.
    public let appleStatus: Int?
    /// Apple's error, or why no answer came.
    public let error: String?
    public let answered: AppleDate?
}
