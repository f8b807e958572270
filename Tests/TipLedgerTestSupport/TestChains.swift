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

    /// Mints a PKI from `options()` changed by `edit`; for the broken variants a verifier must
    /// reject.
    public static func mint(_ edit: (inout TestPKI.Options) -> Void) -> TestPKI {
        var options = options()
        edit(&options)
        do {
            return try TestPKI.mint(options)
        } catch {
            preconditionFailure("cannot mint a test PKI: \(error)")
        }
    }

    /// Another valid PKI with its own root: trusted by nobody who trusts `standard`.
    public static let other = mint { $0.namePrefix = "tipledger OTHER TEST" }

    /// A leaf valid only from 10 days before to 10 days after the reference time, inside the
    /// root's and intermediate's year.
    public static let shortLivedLeaf = mint {
        $0.leafNotBefore = referenceSeconds - 10 * 86_400
        $0.leafNotAfter = referenceSeconds + 10 * 86_400
    }

    /// An intermediate valid only from 10 days before to 10 days after the reference time,
    /// inside the root's and leaf's year.
    public static let shortLivedIntermediate = mint {
        $0.intermediateNotBefore = referenceSeconds - 10 * 86_400
        $0.intermediateNotAfter = referenceSeconds + 10 * 86_400
    }

    /// A root valid only from 10 days before to 10 days after the reference time, inside the
    /// intermediate's and leaf's year.
    public static let shortLivedRoot = mint {
        $0.rootNotBefore = referenceSeconds - 10 * 86_400
        $0.rootNotAfter = referenceSeconds + 10 * 86_400
    }

    /// An intermediate that is not a CA (`CA:FALSE`, no `keyCertSign`).
    public static let intermediateNotCA = mint { $0.intermediateIsCA = false }

    /// A leaf that is itself a CA.
    public static let leafIsCA = mint { $0.leafIsCA = true }

    /// A leaf with a P-384 key, which ES256 does not allow.
    public static let leafP384 = mint { $0.leafCurve = .p384 }

    /// A leaf without the receipt-signing marker OID.
    public static let leafWithoutMarker = mint { $0.leafHasMarker = false }

    /// An intermediate without the WWDR marker OID.
    public static let intermediateWithoutMarker = mint { $0.intermediateHasMarker = false }

    /// A verifier trusting `pki`'s root, accepting `environments` and `bundleId`, checking
    /// online when `onlineChecks` is given.
    public static func verifier(
        trusting pki: TestPKI = standard, bundleId: String = "com.example.tips",
        environments: Set<AppStoreEnvironment> = [.sandbox, .production], appAppleId: Int64? = 1_234_567_890,
        now: Int64 = referenceMilliseconds, onlineChecks: OnlineChecks? = nil
    ) throws -> Verifier {
        Verifier(
            trustStore: try TrustStore(roots: [pki.root]),
            policy: VerificationPolicy(bundleIds: [bundleId], environments: environments, appAppleId: appAppleId),
            clock: .fixed(AppleDate(wholeMilliseconds: now)), onlineChecks: onlineChecks)
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
