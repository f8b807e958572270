// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore

/// The answer to a consumption request (Send Consumption Information v2): what the customer
/// received, for Apple's refund decision.
///
/// The body always says `customerConsented: true`: Apple refuses any other value, so a request
/// is made only when the customer consented to sharing the data. See
/// <https://developer.apple.com/documentation/appstoreserverapi/consumptionrequest>.
public struct ConsumptionRequest: Sendable, Equatable {
    /// Whether and how the purchase was delivered.
    public enum DeliveryStatus: String, Sendable, CaseIterable {
        case delivered = "DELIVERED"
        case undeliveredQualityIssue = "UNDELIVERED_QUALITY_ISSUE"
        case undeliveredWrongItem = "UNDELIVERED_WRONG_ITEM"
        case undeliveredServerOutage = "UNDELIVERED_SERVER_OUTAGE"
        case undeliveredOther = "UNDELIVERED_OTHER"
    }

    /// The outcome the developer prefers.
    public enum RefundPreference: String, Sendable, CaseIterable {
        case decline = "DECLINE"
        case grantFull = "GRANT_FULL"
        case grantProrated = "GRANT_PRORATED"
    }

    public var deliveryStatus: DeliveryStatus
    /// Whether the customer could try the content before buying.
    public var sampleContentProvided: Bool
    /// How much was consumed, in thousandths of a percent: 0…100000 (50000 is half); 0 unless
    /// delivered.
    public var consumptionPercentage: Int32?
    public var refundPreference: RefundPreference?

    public init(
        deliveryStatus: DeliveryStatus, sampleContentProvided: Bool, consumptionPercentage: Int32? = nil,
        refundPreference: RefundPreference? = nil
    ) {
        self.deliveryStatus = deliveryStatus
        self.sampleContentProvided = sampleContentProvided
        self.consumptionPercentage = consumptionPercentage
        self.refundPreference = refundPreference
    }

    /// The JSON body.
    ///
    /// - Throws: `invalidRequest` for a percentage Apple refuses: outside 0…100000, above 0 for
    ///   an undelivered purchase, or none, 0 or 100000 with a prorated refund preferred.
    func body() throws(AppStoreAPIError) -> [UInt8] {
        if let percentage = consumptionPercentage {
            guard (0...100_000).contains(percentage) else {
                throw AppStoreAPIError(.invalidRequest, "the consumption percentage \(percentage) is not in 0…100000")
            }
            guard percentage == 0 || deliveryStatus == .delivered else {
                throw AppStoreAPIError(.invalidRequest, "an undelivered purchase has a consumption percentage of 0")
            }
        }
        guard refundPreference != .grantProrated || (1..<100_000).contains(consumptionPercentage ?? 0) else {
            throw AppStoreAPIError(
                .invalidRequest, "a prorated refund needs a consumption percentage between 0 and 100000")
        }
        var writer = JSONWriter()
        writer.object { fields in
            fields.field("customerConsented", true)
            fields.field("deliveryStatus", deliveryStatus.rawValue)
            fields.field("sampleContentProvided", sampleContentProvided)
            fields.optionalField("consumptionPercentage", consumptionPercentage.map(Int64.init))
            fields.optionalField("refundPreference", refundPreference?.rawValue)
        }
        return writer.bytes
    }
}
