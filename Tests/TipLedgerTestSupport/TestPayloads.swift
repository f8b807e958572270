// SPDX-License-Identifier: GPL-3.0-or-later

/// App Store payloads as JSON text, with every member overridable, so a test can write a wrong
/// type, drop a member or add an unknown one.
///
/// Member values are JSON text: `"990"` is a number, `"\"990\""` a string. An override with a nil
/// value removes the member. Members are written in name order.
public enum TestPayloads {
    /// A JSON string literal of `text`.
    public static func quoted(_ text: String) -> String {
        var out = "\""
        for character in text {
            switch character {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            default: out.append(character)
            }
        }
        return out + "\""
    }

    /// A JSON object of `members` (values are JSON text) with `overrides` applied.
    public static func object(_ members: [String: String], _ overrides: [String: String?] = [:]) -> String {
        var merged = members
        for (name, value) in overrides {
            merged[name] = value
        }
        return "{" + merged.keys.sorted().map { "\(quoted($0)):\(merged[$0]!)" }.joined(separator: ",") + "}"
    }

    /// The reference time in milliseconds, as JSON text.
    public static var referenceDate: String { String(TestChains.referenceMilliseconds) }

    /// A consumable tip transaction for `com.example.tips` in Sandbox, signed at the reference time.
    public static func transaction(_ overrides: [String: String?] = [:]) -> String {
        object(
            [
                "transactionId": quoted("2000000000000001"),
                "originalTransactionId": quoted("2000000000000001"),
                "bundleId": quoted("com.example.tips"),
                "productId": quoted("com.example.tips.small"),
                "purchaseDate": referenceDate,
                "originalPurchaseDate": referenceDate,
                "quantity": "1",
                "type": quoted("Consumable"),
                "appAccountToken": quoted("7e3fb20b-4cdb-47cc-936d-99d65f608138"),
                "inAppOwnershipType": quoted("PURCHASED"),
                "signedDate": referenceDate,
                "environment": quoted("Sandbox"),
                "transactionReason": quoted("PURCHASE"),
                "storefront": quoted("USA"),
                "storefrontId": quoted("143441"),
                "price": "990",
                "currency": quoted("USD"),
            ], overrides)
    }

    /// The `data` member of a notification for `com.example.tips` in Sandbox.
    public static func notificationData(_ overrides: [String: String?] = [:]) -> String {
        object(
            [
                "appAppleId": "1234567890",
                "bundleId": quoted("com.example.tips"),
                "bundleVersion": quoted("1"),
                "environment": quoted("Sandbox"),
            ], overrides)
    }

    /// A TEST notification with `data` from `notificationData()`, signed at the reference time.
    public static func notification(_ overrides: [String: String?] = [:]) -> String {
        object(
            [
                "notificationType": quoted("TEST"),
                "notificationUUID": quoted("0f8c1a2e-4b5d-4e6f-8a9b-0c1d2e3f4a5b"),
                "data": notificationData(),
                "version": quoted("2.0"),
                "signedDate": referenceDate,
            ], overrides)
    }

    /// Renewal information for a subscription in Sandbox, signed at the reference time.
    public static func renewalInfo(_ overrides: [String: String?] = [:]) -> String {
        object(
            [
                "originalTransactionId": quoted("2000000000000001"),
                "autoRenewProductId": quoted("com.example.tips.monthly"),
                "productId": quoted("com.example.tips.monthly"),
                "autoRenewStatus": "1",
                "signedDate": referenceDate,
                "environment": quoted("Sandbox"),
                "recentSubscriptionStartDate": referenceDate,
            ], overrides)
    }

    /// An app transaction for `com.example.tips` in Sandbox, created at the reference time.
    public static func appTransaction(_ overrides: [String: String?] = [:]) -> String {
        object(
            [
                "receiptType": quoted("Sandbox"),
                "appAppleId": "1234567890",
                "bundleId": quoted("com.example.tips"),
                "applicationVersion": quoted("1"),
                "receiptCreationDate": referenceDate,
                "originalPurchaseDate": referenceDate,
                "originalApplicationVersion": quoted("1"),
                "appTransactionId": quoted("704897469903383919"),
            ], overrides)
    }
}
