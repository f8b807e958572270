// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore

/// The body Apple sends with an error status: `{"errorCode": 4040010, "errorMessage": "..."}`.
///
/// Both members must be present with the right types, as in Apple's own libraries; otherwise
/// the answer is reported by its status alone. Codes this version does not name keep their
/// number. See <https://developer.apple.com/documentation/appstoreserverapi/error_codes>.
public struct AppStoreErrorBody: Sendable, Equatable, CustomStringConvertible {
    public let errorCode: Int64
    /// Apple's text, control characters escaped and at most 200 characters.
    public let errorMessage: String

    init(errorCode: Int64, errorMessage: String) {
        self.errorCode = errorCode
        self.errorMessage = PrintableText.escaped(String(errorMessage.prefix(200)))
    }

    /// Decodes an error body, or nil when `bytes` is not one.
    static func decode(_ bytes: [UInt8]) -> AppStoreErrorBody? {
        guard let object = try? JSONParser.parse(bytes).objectValue else { return nil }
        let reader = PayloadReader(object)
        guard let code = try? reader.int64("errorCode"), let message = try? reader.string("errorMessage") else {
            return nil
        }
        return AppStoreErrorBody(errorCode: code, errorMessage: message)
    }

    /// Apple's name for the code (`TransactionIdNotFoundError`), or nil for one not listed here.
    public var name: String? { Self.names[errorCode] }

    /// Whether Apple lists the error among those to retry ("Errors to retry" on the error codes
    /// page): the three `…RetryableError`s for missing accounts, apps and transactions, and
    /// `GeneralInternalRetryableError`.
    public var isRetryable: Bool { [4_040_002, 4_040_004, 4_040_006, 5_000_001].contains(errorCode) }

    /// `TransactionIdNotFoundError (4040010): Transaction id not found.`
    public var description: String {
        "\(name.map { "\($0) (\(errorCode))" } ?? "error \(errorCode)"): \(errorMessage)"
    }

    /// The codes of the endpoints tipledger calls, with Apple's names.
    static let names: [Int64: String] = [
        4_000_000: "GeneralBadRequestError",
        4_000_002: "InvalidAppIdentifierError",
        4_000_005: "InvalidRequestRevisionError",
        4_000_006: "InvalidTransactionIdError",
        4_000_008: "InvalidOriginalTransactionIdError",
        4_000_012: "StartDateTooFarInPastError",
        4_000_013: "StartDateAfterEndDateError",
        4_000_014: "InvalidPaginationTokenError",
        4_000_015: "InvalidStartDateError",
        4_000_016: "InvalidEndDateError",
        4_000_017: "PaginationTokenExpiredError",
        4_000_018: "InvalidNotificationTypeError",
        4_000_019: "MultipleFiltersSuppliedError",
        4_000_020: "InvalidTestNotificationTokenError",
        4_000_021: "InvalidSortError",
        4_000_022: "InvalidProductTypeError",
        4_000_023: "InvalidProductIdError",
        4_000_024: "InvalidSubscriptionGroupIdentifierError",
        4_000_025: "InvalidExcludeRevokedError",
        4_000_026: "InvalidInAppOwnershipTypeError",
        4_000_030: "InvalidRevokedError",
        4_000_035: "InvalidCustomerConsentedError",
        4_000_036: "InvalidDeliveryStatusError",
        4_000_041: "InvalidSampleContentProvidedError",
        4_000_047: "InvalidTransactionTypeNotSupportedError",
        4_000_048: "AppTransactionIdNotSupportedError",
        4_000_185: "FamilyTransactionNotSupportedError",
        4_000_209: "ConsumptionPercentageAutoRenewableSubscriptionError",
        4_040_001: "AccountNotFoundError",
        4_040_002: "AccountNotFoundRetryableError",
        4_040_003: "AppNotFoundError",
        4_040_004: "AppNotFoundRetryableError",
        4_040_005: "OriginalTransactionIdNotFoundError",
        4_040_006: "OriginalTransactionIdNotFoundRetryableError",
        4_040_007: "ServerNotificationUrlNotFoundError",
        4_040_008: "TestNotificationNotFoundError",
        4_040_010: "TransactionIdNotFoundError",
        4_290_000: "RateLimitExceededError",
        5_000_000: "GeneralInternalError",
        5_000_001: "GeneralInternalRetryableError",
    ]
}
