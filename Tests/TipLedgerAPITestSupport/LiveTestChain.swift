// SPDX-License-Identifier: GPL-3.0-or-later
internal import Foundation
public import TipLedgerCore
public import TipLedgerCrypto
internal import TipLedgerTestSupport

/// A test signing chain valid around the real time, for payloads a `tipledger` process checks
/// at its own clock, with its root written where `--keys` finds it.
///
/// Payloads are signed for the App Store Server API test account's bundle id (`com.example`)
/// and the app Apple id `TestChains.appAppleId`, as the fake server's customers' would be.
public struct LiveTestChain: Sendable {
    public let pki: TestPKI
    /// The folder holding the root certificate: what `--keys` is given.
    public let keysDirectory: String
    public let bundleId: String

    /// Mints a chain valid from a year ago to a year ahead and writes its root as
    /// `root.pem` into `directory`/keys. With `ocspURL`, the leaf and the intermediate name that
    /// OCSP responder.
    public init(directory: String, bundleId: String = "com.example", ocspURL: String? = nil) throws {
        let now = Int64(Date().timeIntervalSince1970)
        var options = TestPKI.Options(validFrom: now - 366 * 86_400, validUntil: now + 366 * 86_400)
        options.leafOCSPURL = ocspURL
        options.intermediateOCSPURL = ocspURL
        pki = try TestPKI.mint(options)
        keysDirectory = "\(directory)/keys"
        try FileManager.default.createDirectory(atPath: keysDirectory, withIntermediateDirectories: true)
        try Data(pki.root.pemEncoded.utf8).write(to: URL(fileURLWithPath: "\(keysDirectory)/root.pem"))
        self.bundleId = bundleId
    }

    /// Now, in milliseconds since 1970.
    public static var now: Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    /// A signed consumable tip, purchased (and signed) at `purchaseDate`; `edit` changes more.
    public func transaction(
        id: String, environment: AppStoreEnvironment = .production, purchaseDate: Int64, price: Int64 = 990,
        account: String? = "7e3fb20b-4cdb-47cc-936d-99d65f608138", edit: (inout TestTransaction) -> Void = { _ in }
    ) throws -> String {
        try TestChains.transaction(
            id: id, pki: pki, bundleId: bundleId, productId: "\(bundleId).tip", price: price,
            environment: environment.rawValue, purchaseDate: purchaseDate, account: account, edit: edit)
    }

    /// A signed notification of `type` sent at `signedDate`, about `transaction` when given
    /// (re-signed as the App Store's copy then: a REFUND gains its revocation).
    public func notification(
        _ type: String, uuid: String, signedDate: Int64, about transaction: String? = nil,
        environment: AppStoreEnvironment = .production
    ) throws -> String {
        try TestChains.notification(
            type: type, uuid: uuid, signedDate: signedDate, around: transaction, pki: pki,
            environment: environment.rawValue, bundleId: bundleId)
    }
}
