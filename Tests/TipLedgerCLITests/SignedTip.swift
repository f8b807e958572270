// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation

/// The fields of a signed transaction as the tests decoded them from its JWS themselves: what
/// was really signed, to check the ledger's answers against.
struct SignedTip: Sendable {
    let token: String
    let transactionId: String
    let originalTransactionId: String?
    let appTransactionId: String?
    let productId: String
    /// The appAccountToken, or nil.
    let account: String?
    let quantity: Int64
    /// The line total in milliunits.
    let price: Int64
    let currency: String
    let storefront: String
    let purchaseDate: Int64
    let signedDate: Int64
    let environment: String
    let bundleId: String

    init(_ token: String) throws {
        let payload = try CompactJWS.payload(of: token)
        func text(_ key: String) throws -> String {
            guard let value = payload[key] as? String else { throw CompactJWSError(reason: "no \(key)") }
            return value
        }
        func number(_ key: String) throws -> Int64 {
            guard let value = JSONValue.int64(payload[key]) else { throw CompactJWSError(reason: "no \(key)") }
            return value
        }
        self.token = token
        transactionId = try text("transactionId")
        originalTransactionId = payload["originalTransactionId"] as? String
        appTransactionId = payload["appTransactionId"] as? String
        productId = try text("productId")
        account = (payload["appAccountToken"] as? String)?.lowercased()
        quantity = try number("quantity")
        price = try number("price")
        currency = try text("currency")
        storefront = try text("storefront")
        purchaseDate = try number("purchaseDate")
        signedDate = try number("signedDate")
        environment = try text("environment")
        bundleId = try text("bundleId")
    }

    /// The purchase's UTC day, `2026-01-31`, as `report --by day` groups it.
    var purchaseDay: String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: Double(purchaseDate) / 1000))
    }
}
