// SPDX-License-Identifier: GPL-3.0-or-later

/// The payload of a signed app transaction (the app's purchase), with Apple's field names.
///
/// Its environment is `receiptType`, and its effective time `receiptCreationDate`.
/// See https://developer.apple.com/documentation/appstoreserverapi/apptransaction
public struct AppTransaction: Sendable, Equatable {
    /// Raw `receiptType`: the environment, "Production", "Sandbox", "Xcode", ...
    public let rawReceiptType: String?
    public let appAppleId: Int64?
    public let bundleId: String?
    public let applicationVersion: String?
    public let versionExternalIdentifier: Int64?
    public let receiptCreationDate: AppleDate?
    public let originalPurchaseDate: AppleDate?
    public let originalApplicationVersion: String?
    public let deviceVerification: String?
    public let deviceVerificationNonce: String?
    public let preorderDate: AppleDate?
    public let appTransactionId: String?
    public let rawOriginalPlatform: String?

    init(_ reader: PayloadReader) throws(PayloadError) {
        rawReceiptType = try reader.string("receiptType")
        appAppleId = try reader.int64("appAppleId")
        bundleId = try reader.string("bundleId")
        applicationVersion = try reader.string("applicationVersion")
        versionExternalIdentifier = try reader.int64("versionExternalIdentifier")
        receiptCreationDate = try reader.date("receiptCreationDate")
        originalPurchaseDate = try reader.date("originalPurchaseDate")
        originalApplicationVersion = try reader.string("originalApplicationVersion")
        deviceVerification = try reader.string("deviceVerification")
        deviceVerificationNonce = try reader.uuid("deviceVerificationNonce")
        preorderDate = try reader.date("preorderDate")
        appTransactionId = try reader.string("appTransactionId")
        rawOriginalPlatform = try reader.string("originalPlatform")
    }

    public var receiptType: AppStoreEnvironment? { rawReceiptType.flatMap(AppStoreEnvironment.init(rawValue:)) }
}
