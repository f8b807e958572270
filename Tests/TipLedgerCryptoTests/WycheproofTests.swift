// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerCrypto
import TipLedgerTestSupport

/// One Wycheproof ECDSA verification vector with its group's public key.
struct WycheproofCase: Sendable, CustomTestStringConvertible {
    let tcId: Int
    let comment: String
    let flags: [String]
    let publicKeyDER: [UInt8]
    let message: [UInt8]
    let signature: [UInt8]
    /// `valid` or `invalid`; neither file has `acceptable` cases.
    let result: String

    var testDescription: String { "tcId \(tcId): \(comment)" }

    /// Every vector of a Wycheproof ECDSA file (`testvectors_v1` format).
    static func load(_ file: String, schema: String) -> [WycheproofCase] {
        do {
            guard let top = try Fixtures.json("wycheproof/\(file)") as? [String: Any],
                top["schema"] as? String == schema, let groups = top["testGroups"] as? [[String: Any]]
            else { throw FixtureError(path: file) }
            var cases: [WycheproofCase] = []
            for group in groups {
                guard let keyHex = group["publicKeyDer"] as? String, let key = Hex.decode(keyHex),
                    let tests = group["tests"] as? [[String: Any]]
                else { throw FixtureError(path: file) }
                for test in tests {
                    guard let tcId = test["tcId"] as? Int, let message = (test["msg"] as? String).flatMap(Hex.decode),
                        let signature = (test["sig"] as? String).flatMap(Hex.decode),
                        let result = test["result"] as? String
                    else { throw FixtureError(path: file) }
                    cases.append(
                        WycheproofCase(
                            tcId: tcId, comment: test["comment"] as? String ?? "",
                            flags: test["flags"] as? [String] ?? [],
                            publicKeyDER: key, message: message, signature: signature, result: result))
                }
            }
            return cases
        } catch {
            // An unreadable vector file yields no cases; `vectorFilesHoldEveryCase` then fails.
            return []
        }
    }

    /// Loaded once per process.
    static let p1363 = load("ecdsa_secp256r1_sha256_p1363_test.json", schema: "ecdsa_p1363_verify_schema_v1.json")
    static let der = load("ecdsa_secp256r1_sha256_test.json", schema: "ecdsa_verify_schema_v1.json")
}

@Suite struct WycheproofTests {
    @Test func vectorFilesHoldEveryCase() {
        #expect(WycheproofCase.p1363.count == 262)
        #expect(WycheproofCase.der.count == 484)
        #expect(Set(WycheproofCase.p1363.map(\.tcId)) == Set(1...262))
        #expect(Set(WycheproofCase.der.map(\.tcId)) == Set(1...484))
        let results = Set((WycheproofCase.p1363 + WycheproofCase.der).map(\.result))
        #expect(results == ["valid", "invalid"])
    }

    @Test(arguments: WycheproofCase.p1363)
    func rawSignatureVerdictMatchesWycheproof(_ vector: WycheproofCase) throws {
        let key = try PublicKey(subjectPublicKeyInfo: vector.publicKeyDER)
        #expect(key.isP256, "tcId \(vector.tcId): the key is not P-256")
        let verdict = key.isValidES256Signature(vector.signature, over: vector.message)
        #expect(
            verdict == (vector.result == "valid"),
            "tcId \(vector.tcId) (\(vector.comment), \(vector.flags)): expected \(vector.result)")
    }

    @Test(arguments: WycheproofCase.der)
    func derSignatureVerdictMatchesWycheproof(_ vector: WycheproofCase) throws {
        let key = try PublicKey(subjectPublicKeyInfo: vector.publicKeyDER)
        let verdict = vector.message.withUnsafeBytes { key.isValidSignature(der: vector.signature, over: $0) }
        #expect(
            verdict == (vector.result == "valid"),
            "tcId \(vector.tcId) (\(vector.comment), \(vector.flags)): expected \(vector.result)")
    }
}
