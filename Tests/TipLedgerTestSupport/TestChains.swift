// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore
public import TipLedgerCrypto

/// Test PKIs and verifiers minted around a reference time, so no fixture ever expires.
public enum TestChains {
    /// The reference "now" of the tests: the chains are valid for a year around it.
    public static let referenceMilliseconds: Int64 = 1_767_225_600_000  // 2026-01-01T00:00:00Z

    /// The reference time as whole seconds.
    public static var referenceSeconds: Int64 { referenceMilliseconds / 1000 }

    /// Options for a chain valid from 180 days before to 180 days after the reference time.
    public static func options() -> TestPKI.Options {
        TestPKI.Options(validFrom: referenceSeconds - 180 * 86_400, validUntil: referenceSeconds + 180 * 86_400)
    }

    /// A valid test PKI, minted once per process.
    public static let standard: TestPKI = {
        do {
            return try TestPKI.mint(options())
        } catch {
            preconditionFailure("cannot mint the test PKI: \(error)")
        }
    }()

    /// A verifier trusting `pki`'s root, accepting `environments` and `bundleId`.
    public static func verifier(
        trusting pki: TestPKI = standard, bundleId: String = "com.example.tips",
        environments: Set<AppStoreEnvironment> = [.sandbox, .production], appAppleId: Int64? = 1_234_567_890,
        now: Int64 = referenceMilliseconds
    ) throws -> Verifier {
        Verifier(
            trustStore: try TrustStore(roots: [pki.root]),
            policy: VerificationPolicy(bundleIds: [bundleId], environments: environments, appAppleId: appAppleId),
            clock: .fixed(AppleDate(wholeMilliseconds: now)))
    }

    /// A signed consumable tip transaction from `pki`, at `purchaseDate` (the reference time by
    /// default).
    public static func transaction(
        id: String = "2000000000000001", pki: TestPKI = standard, bundleId: String = "com.example.tips",
        productId: String = "com.example.tips.small", price: Int64 = 990, currency: String = "USD",
        environment: String = "Sandbox", purchaseDate: Int64 = referenceMilliseconds,
        account: String? = "7e3fb20b-4cdb-47cc-936d-99d65f608138", edit: (inout TestTransaction) -> Void = { _ in }
    ) throws -> String {
        var fields = TestTransaction(
            transactionId: id, bundleId: bundleId, productId: productId, price: price, currency: currency,
            environment: environment, purchaseDate: purchaseDate, appAccountToken: account)
        edit(&fields)
        return try JWSSigner(pki: pki).sign(payload: fields.payloadJSON)
    }
}
