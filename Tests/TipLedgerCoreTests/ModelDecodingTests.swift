// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerTestSupport

@testable import TipLedgerCore

/// Decoding of the payload models from the JSON bodies in Apple's library tests
/// (`apple-library/models/`), through the same `PayloadReader` initialisers the verifier uses.
@Suite struct ModelDecodingTests {
    private func reader(_ model: String) throws -> PayloadReader {
        let value = try JSONParser.parse(try Fixtures.bytes("apple-library/models/\(model)"))
        return PayloadReader(try #require(value.objectValue, "\(model) is not a JSON object"))
    }

    private func reader(json: String) throws -> PayloadReader {
        PayloadReader(try #require(try JSONParser.parse(json).objectValue))
    }

    private func date(_ milliseconds: Int64) -> AppleDate { AppleDate(wholeMilliseconds: milliseconds) }

    // MARK: Transactions

    @Test func signedTransactionDecodesEveryField() throws {
        let payload = try JWSTransactionDecodedPayload(try reader("signedTransaction.json"))
        #expect(payload.transactionId == "23456")
        #expect(payload.originalTransactionId == "12345")
        #expect(payload.webOrderLineItemId == "34343")
        #expect(payload.bundleId == "com.example")
        #expect(payload.productId == "com.example.product")
        #expect(payload.subscriptionGroupIdentifier == "55555")
        #expect(payload.purchaseDate == date(1_698_148_900_000))
        #expect(payload.originalPurchaseDate == date(1_698_148_800_000))
        #expect(payload.expiresDate == date(1_698_149_000_000))
        #expect(payload.quantity == 1)
        #expect(payload.rawType == "Auto-Renewable Subscription")
        #expect(payload.type == .autoRenewableSubscription)
        #expect(payload.appAccountToken == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
        #expect(payload.rawInAppOwnershipType == "PURCHASED")
        #expect(payload.inAppOwnershipType == .purchased)
        #expect(payload.signedDate == date(1_698_148_900_000))
        #expect(payload.rawRevocationReason == 1)
        #expect(payload.revocationDate == date(1_698_148_950_000))
        #expect(payload.isUpgraded == true)
        #expect(payload.rawOfferType == 1)
        #expect(payload.offerIdentifier == "abc.123")
        #expect(payload.rawEnvironment == "LocalTesting")
        #expect(payload.environment == .localTesting)
        #expect(payload.storefront == "USA")
        #expect(payload.storefrontId == "143441")
        #expect(payload.rawTransactionReason == "PURCHASE")
        #expect(payload.price == 10_990)
        #expect(payload.currency == "USD")
        #expect(payload.rawOfferDiscountType == "PAY_AS_YOU_GO")
        #expect(payload.appTransactionId == "71134")
        #expect(payload.offerPeriod == "P1Y")
        #expect(payload.rawBillingPlanType == "MONTHLY")
        // Absent here; advancedCommerceInfo and commitmentInfo are not modelled and are ignored.
        #expect(payload.rawRevocationType == nil)
        #expect(payload.revocationType == nil)
        #expect(payload.revocationPercentage == nil)
    }

    @Test func signedTransactionWithRevocationDecodesTheProratedRefund() throws {
        let payload = try JWSTransactionDecodedPayload(try reader("signedTransactionWithRevocation.json"))
        #expect(payload.rawRevocationType == "REFUND_PRORATED")
        #expect(payload.revocationType == .refundProrated)
        #expect(payload.revocationPercentage == 50_000)
        #expect(payload.rawRevocationReason == 1)
        #expect(payload.revocationDate == date(1_698_148_950_000))
        #expect(payload.transactionId == "23456")
        #expect(payload.originalTransactionId == "12345")
        #expect(payload.webOrderLineItemId == "34343")
        #expect(payload.bundleId == "com.example")
        #expect(payload.productId == "com.example.product")
        #expect(payload.subscriptionGroupIdentifier == "55555")
        #expect(payload.purchaseDate == date(1_698_148_900_000))
        #expect(payload.originalPurchaseDate == date(1_698_148_800_000))
        #expect(payload.expiresDate == date(1_698_149_000_000))
        #expect(payload.quantity == 1)
        #expect(payload.type == .autoRenewableSubscription)
        #expect(payload.appAccountToken == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
        #expect(payload.inAppOwnershipType == .purchased)
        #expect(payload.signedDate == date(1_698_148_900_000))
        #expect(payload.isUpgraded == true)
        #expect(payload.rawOfferType == 1)
        #expect(payload.offerIdentifier == "abc.123")
        #expect(payload.environment == .localTesting)
        #expect(payload.storefront == "USA")
        #expect(payload.storefrontId == "143441")
        #expect(payload.rawTransactionReason == "PURCHASE")
        #expect(payload.price == 10_990)
        #expect(payload.currency == "USD")
        #expect(payload.rawOfferDiscountType == "PAY_AS_YOU_GO")
        #expect(payload.appTransactionId == "71134")
        #expect(payload.offerPeriod == "P1Y")
        #expect(payload.rawBillingPlanType == nil)
    }

    // MARK: Renewal info and app transaction

    @Test func signedRenewalInfoDecodesEveryField() throws {
        let payload = try JWSRenewalInfoDecodedPayload(try reader("signedRenewalInfo.json"))
        #expect(payload.rawExpirationIntent == 1)
        #expect(payload.originalTransactionId == "12345")
        #expect(payload.autoRenewProductId == "com.example.product.2")
        #expect(payload.productId == "com.example.product")
        #expect(payload.rawAutoRenewStatus == 1)
        #expect(payload.isInBillingRetryPeriod == true)
        #expect(payload.rawPriceIncreaseStatus == 0)
        #expect(payload.gracePeriodExpiresDate == date(1_698_148_900_000))
        #expect(payload.rawOfferType == 2)
        #expect(payload.offerIdentifier == "abc.123")
        #expect(payload.signedDate == date(1_698_148_800_000))
        #expect(payload.rawEnvironment == "LocalTesting")
        #expect(payload.environment == .localTesting)
        #expect(payload.recentSubscriptionStartDate == date(1_698_148_800_000))
        #expect(payload.renewalDate == date(1_698_148_850_000))
        #expect(payload.renewalPrice == 9_990)
        #expect(payload.currency == "USD")
        #expect(payload.rawOfferDiscountType == "PAY_AS_YOU_GO")
        #expect(payload.eligibleWinBackOfferIds == ["eligible1", "eligible2"])
        #expect(payload.appTransactionId == "71134")
        #expect(payload.offerPeriod == "P1Y")
        #expect(payload.appAccountToken == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
    }

    @Test func appTransactionDecodesEveryField() throws {
        let payload = try AppTransaction(try reader("appTransaction.json"))
        #expect(payload.rawReceiptType == "LocalTesting")
        #expect(payload.receiptType == .localTesting)
        #expect(payload.appAppleId == 531_412)
        #expect(payload.bundleId == "com.example")
        #expect(payload.applicationVersion == "1.2.3")
        #expect(payload.versionExternalIdentifier == 512)
        #expect(payload.receiptCreationDate == date(1_698_148_900_000))
        #expect(payload.originalPurchaseDate == date(1_698_148_800_000))
        #expect(payload.originalApplicationVersion == "1.1.2")
        #expect(payload.deviceVerification == "device_verification_value")
        #expect(payload.deviceVerificationNonce == "48ccfa42-7431-4f22-9908-7e88983e105a")
        #expect(payload.preorderDate == date(1_698_148_700_000))
        #expect(payload.appTransactionId == "71134")
        #expect(payload.rawOriginalPlatform == "iOS")
    }

    // MARK: Notifications

    @Test func signedNotificationDecodesEveryField() throws {
        let payload = try ResponseBodyV2DecodedPayload(try reader("signedNotification.json"))
        #expect(payload.rawNotificationType == "SUBSCRIBED")
        #expect(payload.notificationType == .subscribed)
        #expect(payload.rawSubtype == "INITIAL_BUY")
        #expect(payload.notificationUUID == "002e14d5-51f5-4503-b5a8-c3a1af68eb20")
        #expect(payload.version == "2.0")
        #expect(payload.signedDate == date(1_698_148_900_000))
        let data = try #require(payload.data)
        #expect(data.rawEnvironment == "LocalTesting")
        #expect(data.appAppleId == 41_234)
        #expect(data.bundleId == "com.example")
        #expect(data.bundleVersion == "1.2.3")
        #expect(data.signedTransactionInfo == "signed_transaction_info_value")
        #expect(data.signedRenewalInfo == "signed_renewal_info_value")
        #expect(data.rawStatus == 1)
        #expect(data.rawConsumptionRequestReason == nil)
        #expect(payload.summary == nil && payload.externalPurchaseToken == nil && payload.appData == nil)
        let identity = payload.claimedIdentity
        #expect(identity.bundleId == "com.example" && identity.appAppleId == 41_234)
        #expect(identity.rawEnvironment == "LocalTesting")
    }

    @Test func summaryNotificationDecodesEveryField() throws {
        let payload = try ResponseBodyV2DecodedPayload(try reader("signedSummaryNotification.json"))
        #expect(payload.notificationType == .renewalExtension)
        #expect(payload.rawSubtype == "SUMMARY")
        #expect(payload.notificationUUID == "002e14d5-51f5-4503-b5a8-c3a1af68eb20")
        #expect(payload.version == "2.0")
        #expect(payload.signedDate == date(1_698_148_900_000))
        #expect(payload.data == nil)
        let summary = try #require(payload.summary)
        #expect(summary.rawEnvironment == "LocalTesting")
        #expect(summary.appAppleId == 41_234)
        #expect(summary.bundleId == "com.example")
        #expect(summary.productId == "com.example.product")
        #expect(summary.requestIdentifier == "efb27071-45a4-4aca-9854-2a1e9146f265")
        #expect(summary.storefrontCountryCodes == ["CAN", "USA", "MEX"])
        #expect(summary.succeededCount == 5)
        #expect(summary.failedCount == 2)
        let identity = payload.claimedIdentity
        #expect(identity.bundleId == "com.example" && identity.appAppleId == 41_234)
        #expect(identity.rawEnvironment == "LocalTesting")
    }

    @Test(arguments: [
        ("signedExternalPurchaseTokenNotification.json", "b2158121-7af9-49d4-9561-1f588205523e", "Production"),
        (
            "signedExternalPurchaseTokenSandboxNotification.json", "SANDBOX_b2158121-7af9-49d4-9561-1f588205523e",
            "Sandbox"
        ),
    ])
    func externalPurchaseTokenNotificationDerivesItsEnvironmentFromTheId(
        _ model: String, _ externalPurchaseId: String, _ environment: String
    ) throws {
        let payload = try ResponseBodyV2DecodedPayload(try reader(model))
        #expect(payload.notificationType == .externalPurchaseToken)
        #expect(payload.rawSubtype == "UNREPORTED")
        #expect(payload.notificationUUID == "002e14d5-51f5-4503-b5a8-c3a1af68eb20")
        #expect(payload.version == "2.0")
        #expect(payload.signedDate == date(1_698_148_900_000))
        #expect(payload.data == nil && payload.summary == nil && payload.appData == nil)
        let token = try #require(payload.externalPurchaseToken)
        #expect(token.externalPurchaseId == externalPurchaseId)
        #expect(token.tokenCreationDate == date(1_698_148_950_000))
        #expect(token.appAppleId == 55_555)
        #expect(token.bundleId == "com.example")
        let identity = payload.claimedIdentity
        #expect(identity.bundleId == "com.example" && identity.appAppleId == 55_555)
        #expect(identity.rawEnvironment == environment)
    }

    @Test func rescindConsentNotificationDecodesItsAppData() throws {
        let payload = try ResponseBodyV2DecodedPayload(try reader("signedRescindConsentNotification.json"))
        #expect(payload.notificationType == .rescindConsent)
        #expect(payload.rawSubtype == nil)
        #expect(payload.notificationUUID == "002e14d5-51f5-4503-b5a8-c3a1af68eb20")
        #expect(payload.version == "2.0")
        #expect(payload.signedDate == date(1_698_148_900_000))
        #expect(payload.data == nil)
        let appData = try #require(payload.appData)
        #expect(appData.appAppleId == 41_234)
        #expect(appData.bundleId == "com.example")
        #expect(appData.rawEnvironment == "LocalTesting")
        #expect(appData.signedAppTransactionInfo == "signed_app_transaction_info_value")
        let identity = payload.claimedIdentity
        #expect(identity.bundleId == "com.example" && identity.appAppleId == 41_234)
        #expect(identity.rawEnvironment == "LocalTesting")
    }

    @Test func consumptionRequestNotificationDecodesItsReason() throws {
        let payload = try ResponseBodyV2DecodedPayload(try reader("signedConsumptionRequestNotification.json"))
        #expect(payload.notificationType == .consumptionRequest)
        #expect(payload.rawSubtype == nil)
        #expect(payload.notificationUUID == "002e14d5-51f5-4503-b5a8-c3a1af68eb20")
        #expect(payload.version == "2.0")
        #expect(payload.signedDate == date(1_698_148_900_000))
        let data = try #require(payload.data)
        #expect(data.rawConsumptionRequestReason == "UNINTENDED_PURCHASE")
        #expect(data.rawEnvironment == "LocalTesting")
        #expect(data.appAppleId == 41_234)
        #expect(data.bundleId == "com.example")
        #expect(data.bundleVersion == "1.2.3")
        #expect(data.signedTransactionInfo == "signed_transaction_info_value")
        #expect(data.signedRenewalInfo == "signed_renewal_info_value")
        #expect(data.rawStatus == 1)
    }

    @Test func bareAppDataDecodes() throws {
        let appData = try AppData(try reader("appData.json"))
        #expect(appData.appAppleId == 987_654_321)
        #expect(appData.bundleId == "com.example")
        #expect(appData.rawEnvironment == "Sandbox")
        #expect(appData.signedAppTransactionInfo == "signed-app-transaction-info")
    }

    // MARK: The reader's rules

    @Test func aWrongTypeNamesTheFieldsPath() throws {
        #expect(throws: PayloadError(field: "data.appAppleId", reason: "expected an integer, got a string")) {
            try ResponseBodyV2DecodedPayload(try reader(json: #"{"data":{"appAppleId":"blue"}}"#))
        }
        #expect(throws: PayloadError(field: "price", reason: "expected an integer, got a number")) {
            try JWSTransactionDecodedPayload(try reader(json: #"{"price":9.99}"#))
        }
        #expect(throws: PayloadError.self) { try JWSTransactionDecodedPayload(try reader(json: #"{"isUpgraded":1}"#)) }
        #expect(throws: PayloadError.self) {
            try JWSTransactionDecodedPayload(try reader(json: #"{"signedDate":"1"}"#))
        }
        #expect(throws: PayloadError.self) {
            try JWSRenewalInfoDecodedPayload(try reader(json: #"{"eligibleWinBackOfferIds":["a",1]}"#))
        }
        #expect(throws: PayloadError.self) { try ResponseBodyV2DecodedPayload(try reader(json: #"{"data":[]}"#)) }
    }

    @Test func nullIsTheSameAsAbsent() throws {
        let payload = try JWSTransactionDecodedPayload(
            try reader(json: #"{"transactionId":null,"price":null,"signedDate":null,"appAccountToken":null}"#))
        #expect(payload.transactionId == nil && payload.price == nil && payload.signedDate == nil)
        #expect(payload.appAccountToken == nil)
    }

    @Test func int32FieldsRefuseValuesOutOfRange() throws {
        #expect(throws: PayloadError.self) {
            try JWSTransactionDecodedPayload(try reader(json: #"{"quantity":2147483648}"#))
        }
        #expect(throws: PayloadError.self) {
            try JWSTransactionDecodedPayload(try reader(json: #"{"quantity":-2147483649}"#))
        }
        #expect(try JWSTransactionDecodedPayload(try reader(json: #"{"quantity":2147483647}"#)).quantity == Int32.max)
    }

    @Test func uuidFieldsAreCheckedForShape() throws {
        #expect(throws: PayloadError.self) {
            try JWSTransactionDecodedPayload(try reader(json: #"{"appAccountToken":"not-a-uuid"}"#))
        }
        #expect(throws: PayloadError.self) {
            try ResponseBodyV2DecodedPayload(try reader(json: #"{"notificationUUID":"1234"}"#))
        }
    }

    @Test func unknownEnumValuesKeepTheirRawValue() throws {
        let payload = try JWSTransactionDecodedPayload(
            try reader(
                json:
                    #"{"type":"Tip Jar","inAppOwnershipType":"BORROWED","revocationType":"REFUND_LATER","environment":"Moon"}"#
            ))
        #expect(payload.rawType == "Tip Jar" && payload.type == nil)
        #expect(payload.rawInAppOwnershipType == "BORROWED" && payload.inAppOwnershipType == nil)
        #expect(payload.rawRevocationType == "REFUND_LATER" && payload.revocationType == nil)
        #expect(payload.rawEnvironment == "Moon" && payload.environment == nil)
        let notification = try ResponseBodyV2DecodedPayload(try reader(json: #"{"notificationType":"TIP_RECEIVED"}"#))
        #expect(notification.rawNotificationType == "TIP_RECEIVED" && notification.notificationType == nil)
    }

    @Test func datesOutsideTheYears0To9999AreRefusedInsteadOfOverflowing() throws {
        let latest = try JWSTransactionDecodedPayload(try reader(json: #"{"signedDate":253402300799999}"#))
        #expect(latest.signedDate?.wholeSeconds == 253_402_300_799)
        let earliest = try JWSTransactionDecodedPayload(try reader(json: #"{"signedDate":-62167219200000}"#))
        #expect(earliest.signedDate?.wholeSeconds == -62_167_219_200)
        for text in [
            "253402300800000", "-62167219200001", "-62167219200000.5", "-253402300799999", "1e300", "-1e300",
            "9223372036854775807", "1e19",
        ] {
            #expect(throws: PayloadError.self, "\(text)") {
                try JWSTransactionDecodedPayload(try reader(json: "{\"purchaseDate\":\(text)}"))
            }
        }
    }

    @Test func fractionalDatesDecodeExactly() throws {
        let payload = try JWSTransactionDecodedPayload(
            try reader(
                json:
                    #"{"purchaseDate":1697679936049.7297,"signedDate":1697679936056.485,"expiresDate":-62135769600000}"#
            ))
        #expect(payload.purchaseDate?.milliseconds == 1697679936049.7297)
        #expect(payload.purchaseDate?.wholeMilliseconds == 1_697_679_936_049)
        #expect(payload.purchaseDate?.wholeSeconds == 1_697_679_936)
        #expect(payload.signedDate?.milliseconds == 1697679936056.485)
        #expect(payload.expiresDate?.milliseconds == -62_135_769_600_000)
        #expect(payload.expiresDate?.wholeSeconds == -62_135_769_600)
    }
}
