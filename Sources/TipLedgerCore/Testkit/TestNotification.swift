// SPDX-License-Identifier: GPL-3.0-or-later

/// The fields of an App Store Server Notification V2 payload to sign for testing
/// (`tipledger testkit notification`).
public struct TestNotification: Sendable {
    public var notificationType: String
    public var subtype: String?
    public var notificationUUID: String
    /// Milliseconds since 1970.
    public var signedDate: Int64
    /// Leaves `signedDate` out of the payload, as some of Apple's older notifications do.
    public var omitsSignedDate = false
    public var environment: String
    public var bundleId: String
    public var appAppleId: Int64?
    public var bundleVersion = "1"
    /// A signed transaction JWS to put in `data.signedTransactionInfo`.
    public var signedTransactionInfo: String?
    public var consumptionRequestReason: String?

    public init(
        notificationType: String, subtype: String? = nil, notificationUUID: String, signedDate: Int64,
        environment: String, bundleId: String, appAppleId: Int64? = nil, signedTransactionInfo: String? = nil
    ) {
        self.notificationType = notificationType
        self.subtype = subtype
        self.notificationUUID = notificationUUID
        self.signedDate = signedDate
        self.environment = environment
        self.bundleId = bundleId
        self.appAppleId = appAppleId
        self.signedTransactionInfo = signedTransactionInfo
    }

    /// The payload as JSON bytes.
    public var payloadJSON: [UInt8] {
        var writer = JSONWriter()
        writer.object { payload in
            payload.field("notificationType", notificationType)
            payload.optionalField("subtype", subtype)
            payload.field("notificationUUID", notificationUUID)
            payload.object("data") { data in
                data.optionalField("appAppleId", appAppleId)
                data.field("bundleId", bundleId)
                data.field("bundleVersion", bundleVersion)
                data.field("environment", environment)
                data.optionalField("signedTransactionInfo", signedTransactionInfo)
                data.optionalField("consumptionRequestReason", consumptionRequestReason)
            }
            payload.field("version", "2.0")
            if !omitsSignedDate { payload.field("signedDate", signedDate) }
        }
        return writer.bytes
    }
}
