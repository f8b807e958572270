// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerCore
import TipLedgerCrypto
import TipLedgerTestSupport

@testable import TipLedgerStore

/// The raw signed JWS is kept as evidence, re-verifiable offline later (docs/ledger.md).
@Suite struct EvidenceTests {
    let hour = TestLedger.hour
    let reference = TestLedger.reference

    /// A second test PKI with its own root, minted once.
    static let otherPKI: TestPKI = {
        var options = TestChains.options()
        options.namePrefix = "tipledger OTHER TEST"
        do {
            return try TestPKI.mint(options)
        } catch {
            preconditionFailure("cannot mint the other test PKI: \(error)")
        }
    }()

    /// A verifier trusting `roots`, accepting `bundleIds` in Sandbox and Production.
    static func verifier(roots: [TestPKI], bundleIds: Set<String>) throws -> Verifier {
        Verifier(
            trustStore: try TrustStore(roots: roots.map(\.root)),
            policy: VerificationPolicy(
                bundleIds: bundleIds, environments: [.sandbox, .production], appAppleId: TestChains.appAppleId),
            clock: .fixed(AppleDate(wholeMilliseconds: TestChains.referenceMilliseconds)))
    }

    /// Every stored token, rebuilt from its deduplicated header and its body.
    func storedTokens(_ store: TestLedger) throws -> [String] {
        try store.ledger.texts(
            """
            SELECT header || '.' || body FROM evidence JOIN jws_headers ON jws_headers.id = evidence.header_id
            ORDER BY evidence.id
            """
        ).map { $0 ?? "" }
    }

    @Test func rawTokensAreRecoverableByteForByte() throws {
        let store = try TestLedger()
        let purchase = try TestChains.transaction(id: "2000000000000001")
        let refund = try TestLedger.notification("REFUND", about: purchase)
        guard case .notification(let verified) = try TestChains.verified(refund) else {
            Issue.record("the refund did not verify as a notification")
            return
        }
        let nested = try #require(verified.transaction?.jws)

        try store.record(purchase)
        try store.record(refund)

        #expect(try storedTokens(store) == [purchase, refund, nested])
        #expect(
            try store.ledger.texts(
                "SELECT kind || ' ' || coalesce(transaction_id, '-') || ' ' || coalesce(notification_uuid, '-') "
                    + "FROM evidence ORDER BY id")
                == [
                    "transaction 2000000000000001 -", "notification 2000000000000001 \(TestChains.uuid(1))",
                    "transaction 2000000000000001 \(TestChains.uuid(1))",
                ])
        // The transaction row points at the newest signed copy: the one inside the refund.
        #expect(
            try store.ledger.texts(
                """
                SELECT header || '.' || body FROM transactions JOIN evidence ON evidence.id = transactions.evidence_id
                JOIN jws_headers ON jws_headers.id = evidence.header_id
                """) == [nested])
    }

    @Test func headersAreStoredOncePerSigningChain() throws {
        let store = try TestLedger()
        let verifier = try Self.verifier(roots: [TestChains.standard, Self.otherPKI], bundleIds: ["com.example.tips"])
        var tokens: [String] = []
        for number in 1...10 {
            tokens.append(try TestChains.transaction(id: String(2_000_000_000_000_000 + number)))
        }
        tokens.append(
            try TestChains.notification(type: "REFUND", uuid: TestChains.uuid(1), around: tokens[0]))
        tokens.append(try TestChains.transaction(id: "2000000000000099", pki: Self.otherPKI))
        tokens.append(try TestChains.transaction(id: "2000000000000098", pki: Self.otherPKI))

        _ = try store.ledger.record(try tokens.map { try TestChains.verified($0, by: verifier) }, finish: true)

        #expect(try store.count("evidence") == 14)
        #expect(try store.count("jws_headers") == 2)
        #expect(Set(try storedTokens(store)) == Set(tokens).union(try nestedTokens(of: tokens[10])))
    }

    func nestedTokens(of notification: String) throws -> [String] {
        guard case .notification(let verified) = try TestChains.verified(notification) else { return [] }
        return [verified.transaction?.jws].compactMap { $0 }
    }

    @Test func reverifyPassesForALedgerOfGoodTokens() throws {
        let store = try TestLedger()
        let purchase = try TestChains.transaction(id: "2000000000000001")
        try store.record(batch: [
            purchase, try TestChains.transaction(id: "2000000000000002", environment: "Production"),
            try TestLedger.notification("REFUND", about: purchase),
            try TestChains.notification(type: "TEST", uuid: TestChains.uuid(2)),
        ])
        var calls: [(Int, Int)] = []

        let failures = try store.ledger.reverify(with: TestChains.standardVerifier) { calls.append(($0, $1)) }

        #expect(failures.isEmpty)
        #expect(calls.last.map { "\($0.0)/\($0.1)" } == "5/5")
    }

    @Test func reverifyReportsTheTokensAnotherTrustStoreRejects() throws {
        let store = try TestLedger()
        let both = try Self.verifier(roots: [TestChains.standard, Self.otherPKI], bundleIds: ["com.example.tips"])
        let foreign = try TestChains.transaction(id: "2000000000000002", pki: Self.otherPKI)
        let tokens = [
            try TestChains.transaction(id: "2000000000000001"), foreign,
            try TestChains.notification(
                type: "REFUND", uuid: TestChains.uuid(1), signedDate: reference + hour, around: foreign,
                pki: Self.otherPKI),
        ]
        _ = try store.ledger.record(try tokens.map { try TestChains.verified($0, by: both) }, finish: true)

        let failures = try store.ledger.reverify(with: TestChains.standardVerifier)

        #expect(
            failures.map { "\($0.evidenceId) \($0.kind) \($0.transactionId ?? "-") \($0.notificationUUID ?? "-")" } == [
                "2 transaction 2000000000000002 -", "3 notification 2000000000000002 \(TestChains.uuid(1))",
                "4 transaction 2000000000000002 \(TestChains.uuid(1))",
            ])
        #expect(failures.allSatisfy { $0.error.code == .untrustedChain })
        #expect(failures.allSatisfy { $0.environment == "Sandbox" })
    }

    @Test func reverifyReportsTheTokensOfAnotherBundleId() throws {
        let store = try TestLedger()
        let both = try Self.verifier(
            roots: [TestChains.standard], bundleIds: ["com.example.tips", "com.example.other"])
        let other = try TestChains.transaction(id: "2000000000000002", bundleId: "com.example.other")
        let tokens = [
            try TestChains.transaction(id: "2000000000000001"), other,
            try TestChains.notification(type: "TEST", uuid: TestChains.uuid(1), bundleId: "com.example.other"),
        ]
        _ = try store.ledger.record(try tokens.map { try TestChains.verified($0, by: both) }, finish: true)

        let failures = try store.ledger.reverify(with: TestChains.standardVerifier)

        #expect(failures.map(\.evidenceId) == [2, 3])
        #expect(failures.map(\.kind) == ["transaction", "notification"])
        #expect(failures.allSatisfy { $0.error.code == .wrongBundleId })
    }
}
