// SPDX-License-Identifier: GPL-3.0-or-later

/// The payload of signed subscription renewal information, with Apple's field names.
///
/// Carries no bundle id, so only its environment can be checked.
/// See https://developer.apple.com/documentation/appstoreserverapi/jwsrenewalinfodecodedpayload
public struct JWSRenewalInfoDecodedPayload: Sendable, Equatable {
    public let rawExpirationIntent: Int32?
    public let originalTransactionId: String?
    public let autoRenewProductId: String?
    public let productId: String?
    public let rawAutoRenewStatus: Int32?
    public let isInBillingRetryPeriod: Bool?
    public let rawPriceIncreaseStatus: Int32?
    public let gracePeriodExpiresDate: AppleDate?
    public let rawOfferType: Int32?
    public let offerIdentifier: String?
    public let signedDate: AppleDate?
    public let rawEnvironment: String?
    public let recentSubscriptionStartDate: AppleDate?
    public let renewalDate: AppleDate?
    public let currency: String?
    /// In milliunits of `currency`.
    public let renewalPrice: Int64?
    public let rawOfferDiscountType: String?
    public let eligibleWinBackOfferIds: [String]?
    public let appAccountToken: String?
    public let appTransactionId: String?
    public let offerPeriod: String?

    init(_ reader: PayloadReader) throws(PayloadError) {
        rawExpirationIntent = try reader.int32("expirationIntent")
        originalTransactionId = try reader.string("originalTransactionId")
        autoRenewProductId = try reader.string("autoRenewProductId")
        productId = try reader.string("productId")
        rawAutoRenewStatus = try reader.int32("autoRenewStatus")
        isInBillingRetryPeriod = try reader.bool("isInBillingRetryPeriod")
        rawPriceIncreaseStatus = try reader.int32("priceIncreaseStatus")
        gracePeriodExpiresDate = try reader.date("gracePeriodExpiresDate")
        rawOfferType = try reader.int32("offerType")
        offerIdentifier = try reader.string("offerIdentifier")
        signedDate = try reader.date("signedDate")
        rawEnvironment = try reader.string("environment")
        recentSubscriptionStartDate = try reader.date("recentSubscriptionStartDate")
        renewalDate = try reader.date("renewalDate")
        currency = try reader.currency("currency")
        renewalPrice = try reader.int64("renewalPrice")
        rawOfferDiscountType = try reader.string("offerDiscountType")
        eligibleWinBackOfferIds = try reader.strings("eligibleWinBackOfferIds")
        appAccountToken = try reader.uuid("appAccountToken")
        appTransactionId = try reader.string("appTransactionId")
        offerPeriod = try reader.string("offerPeriod")
    }

    public var environment: AppStoreEnvironment? { rawEnvironment.flatMap(AppStoreEnvironment.init(rawValue:)) }
}
