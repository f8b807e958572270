// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore

/// Which of a customer's transactions Get Transaction History (v2) returns, and in what order.
///
/// Every filter is optional; the same query goes with every page. See
/// <https://developer.apple.com/documentation/appstoreserverapi/get-transaction-history>.
public struct TransactionHistoryRequest: Sendable, Equatable {
    /// Apple's product types.
    public enum ProductType: String, Sendable, CaseIterable {
        case autoRenewable = "AUTO_RENEWABLE"
        case nonRenewable = "NON_RENEWABLE"
        case consumable = "CONSUMABLE"
        case nonConsumable = "NON_CONSUMABLE"
    }

    /// The order of the pages, by the date a transaction last changed.
    public enum Order: String, Sendable, CaseIterable {
        case ascending = "ASCENDING"
        case descending = "DESCENDING"
    }

    /// Purchased by the customer, or shared with them by Family Sharing.
    public enum InAppOwnershipType: String, Sendable, CaseIterable {
        case purchased = "PURCHASED"
        case familyShared = "FAMILY_SHARED"
    }

    /// Only transactions purchased at or after this date.
    public var startDate: AppleDate?
    /// Only transactions purchased before this date.
    public var endDate: AppleDate?
    public var productIds: [String] = []
    public var productTypes: [ProductType] = []
    /// Apple's default is ascending.
    public var sort: Order?
    public var subscriptionGroupIdentifiers: [String] = []
    public var inAppOwnershipType: InAppOwnershipType?
    /// Only refunded and revoked transactions (true), or only others (false).
    public var revoked: Bool?

    public init() {}

    /// The query parameters in Apple's names, before the page's `revision`.
    var queryItems: [(String, String)] {
        var items: [(String, String)] = []
        if let startDate { items.append(("startDate", String(startDate.wholeMilliseconds))) }
        if let endDate { items.append(("endDate", String(endDate.wholeMilliseconds))) }
        items += productIds.map { ("productId", $0) }
        items += productTypes.map { ("productType", $0.rawValue) }
        if let sort { items.append(("sort", sort.rawValue)) }
        items += subscriptionGroupIdentifiers.map { ("subscriptionGroupIdentifier", $0) }
        if let inAppOwnershipType { items.append(("inAppOwnershipType", inAppOwnershipType.rawValue)) }
        if let revoked { items.append(("revoked", revoked ? "true" : "false")) }
        return items
    }
}
