// SPDX-License-Identifier: GPL-3.0-or-later

/// The payload of an App Store Server Notification V2, with Apple's field names.
///
/// Exactly one of `data`, `summary`, `externalPurchaseToken` or `appData` normally carries the
/// app's identity. The signed strings inside them are verified separately before anything in them
/// is used (see `VerifiedNotification`).
/// See https://developer.apple.com/documentation/appstoreservernotifications/responsebodyv2decodedpayload
public struct ResponseBodyV2DecodedPayload: Sendable, Equatable {
    /// Raw `notificationType`, e.g. "REFUND", "CONSUMPTION_REQUEST".
    public let rawNotificationType: String?
    /// Raw `subtype`, e.g. "SUMMARY", "VOLUNTARY".
    public let rawSubtype: String?
    public let notificationUUID: String?
    public let data: NotificationData?
    public let version: String?
    public let signedDate: AppleDate?
    public let summary: NotificationSummary?
    public let externalPurchaseToken: ExternalPurchaseToken?
    public let appData: AppData?

    init(_ reader: PayloadReader) throws(PayloadError) {
        rawNotificationType = try reader.string("notificationType")
        rawSubtype = try reader.string("subtype")
        notificationUUID = try reader.uuid("notificationUUID")
        data = try reader.object("data").map { (nested) throws(PayloadError) in try NotificationData(nested) }
        version = try reader.string("version")
        signedDate = try reader.date("signedDate")
        summary = try reader.object("summary").map { (nested) throws(PayloadError) in try NotificationSummary(nested) }
        externalPurchaseToken = try reader.object("externalPurchaseToken").map { (nested) throws(PayloadError) in
            try ExternalPurchaseToken(nested)
        }
        appData = try reader.object("appData").map { (nested) throws(PayloadError) in try AppData(nested) }
    }

    public var notificationType: NotificationType? {
        rawNotificationType.flatMap(NotificationType.init(rawValue:))
    }

    /// The app identity the notification claims: from `data`, `summary`, `externalPurchaseToken`
    /// or `appData`, whichever is present, in that order.
    public var claimedIdentity: (bundleId: String?, appAppleId: Int64?, rawEnvironment: String?) {
        if let data { return (data.bundleId, data.appAppleId, data.rawEnvironment) }
        if let summary { return (summary.bundleId, summary.appAppleId, summary.rawEnvironment) }
        if let token = externalPurchaseToken {
            // Apple derives the environment from the id: sandbox tokens start with "SANDBOX",
            // every other token, one without an id too, is Production's.
            let isSandbox = token.externalPurchaseId?.hasPrefix("SANDBOX") == true
            let environment: AppStoreEnvironment = isSandbox ? .sandbox : .production
            return (token.bundleId, token.appAppleId, environment.rawValue)
        }
        if let appData { return (appData.bundleId, appData.appAppleId, appData.rawEnvironment) }
        return (nil, nil, nil)
    }
}

/// The `data` object of a notification.
/// See https://developer.apple.com/documentation/appstoreservernotifications/data
public struct NotificationData: Sendable, Equatable {
    public let rawEnvironment: String?
    public let appAppleId: Int64?
    public let bundleId: String?
    public let bundleVersion: String?
    /// A transaction JWS; verified before use.
    public let signedTransactionInfo: String?
    /// A renewal info JWS; verified before use.
    public let signedRenewalInfo: String?
    public let rawStatus: Int32?
    /// Raw `consumptionRequestReason`, e.g. "UNINTENDED_PURCHASE".
    public let rawConsumptionRequestReason: String?

    init(_ reader: PayloadReader) throws(PayloadError) {
        rawEnvironment = try reader.string("environment")
        appAppleId = try reader.int64("appAppleId")
        bundleId = try reader.string("bundleId")
        bundleVersion = try reader.string("bundleVersion")
        signedTransactionInfo = try reader.string("signedTransactionInfo")
        signedRenewalInfo = try reader.string("signedRenewalInfo")
        rawStatus = try reader.int32("status")
        rawConsumptionRequestReason = try reader.string("consumptionRequestReason")
    }
}

/// The `summary` object of a notification (subtype SUMMARY).
/// See https://developer.apple.com/documentation/appstoreservernotifications/summary
public struct NotificationSummary: Sendable, Equatable {
    public let rawEnvironment: String?
    public let appAppleId: Int64?
    public let bundleId: String?
    public let productId: String?
    public let requestIdentifier: String?
    public let storefrontCountryCodes: [String]?
    public let succeededCount: Int64?
    public let failedCount: Int64?

    init(_ reader: PayloadReader) throws(PayloadError) {
        rawEnvironment = try reader.string("environment")
        appAppleId = try reader.int64("appAppleId")
        bundleId = try reader.string("bundleId")
        productId = try reader.string("productId")
        requestIdentifier = try reader.string("requestIdentifier")
        storefrontCountryCodes = try reader.strings("storefrontCountryCodes")
        succeededCount = try reader.int64("succeededCount")
        failedCount = try reader.int64("failedCount")
    }
}

/// The `externalPurchaseToken` object of an EXTERNAL_PURCHASE_TOKEN notification.
/// See https://developer.apple.com/documentation/appstoreservernotifications/externalpurchasetoken
public struct ExternalPurchaseToken: Sendable, Equatable {
    public let externalPurchaseId: String?
    public let tokenCreationDate: AppleDate?
    public let appAppleId: Int64?
    public let bundleId: String?

    init(_ reader: PayloadReader) throws(PayloadError) {
        externalPurchaseId = try reader.string("externalPurchaseId")
        tokenCreationDate = try reader.date("tokenCreationDate")
        appAppleId = try reader.int64("appAppleId")
        bundleId = try reader.string("bundleId")
    }
}

/// The `appData` object of an app-level notification such as RESCIND_CONSENT.
/// See https://developer.apple.com/documentation/appstoreservernotifications/appdata
public struct AppData: Sendable, Equatable {
    public let appAppleId: Int64?
    public let bundleId: String?
    public let rawEnvironment: String?
    /// An app transaction JWS; verified before use.
    public let signedAppTransactionInfo: String?

    init(_ reader: PayloadReader) throws(PayloadError) {
        appAppleId = try reader.int64("appAppleId")
        bundleId = try reader.string("bundleId")
        rawEnvironment = try reader.string("environment")
        signedAppTransactionInfo = try reader.string("signedAppTransactionInfo")
    }
}

/// Notification types. https://developer.apple.com/documentation/appstoreservernotifications/notificationtype
public enum NotificationType: String, Sendable, CaseIterable {
    case consumptionRequest = "CONSUMPTION_REQUEST"
    case didChangeRenewalPref = "DID_CHANGE_RENEWAL_PREF"
    case didChangeRenewalStatus = "DID_CHANGE_RENEWAL_STATUS"
    case didFailToRenew = "DID_FAIL_TO_RENEW"
    case didRenew = "DID_RENEW"
    case expired = "EXPIRED"
    case externalPurchaseToken = "EXTERNAL_PURCHASE_TOKEN"
    case gracePeriodExpired = "GRACE_PERIOD_EXPIRED"
    case metadataUpdate = "METADATA_UPDATE"
    case migration = "MIGRATION"
    case offerRedeemed = "OFFER_REDEEMED"
    case oneTimeCharge = "ONE_TIME_CHARGE"
    case priceChange = "PRICE_CHANGE"
    case priceIncrease = "PRICE_INCREASE"
    case refund = "REFUND"
    case refundDeclined = "REFUND_DECLINED"
    case refundReversed = "REFUND_REVERSED"
    case renewalExtended = "RENEWAL_EXTENDED"
    case renewalExtension = "RENEWAL_EXTENSION"
    case rescindConsent = "RESCIND_CONSENT"
    case revoke = "REVOKE"
    case subscribed = "SUBSCRIBED"
    case test = "TEST"
}
