// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing

/// What testkit writes verifies with the OpenSSL command line, independently of the project's
/// own verifier: the chain with `openssl verify`, each signature with `openssl dgst`.
@Suite struct OpenSSLCrossCheckTests {
    static let openssl = "/usr/bin/openssl"

    static func openssl(_ arguments: [String], in directory: TemporaryDirectory) async throws -> ProcessOutput {
        try await Subprocess(
            executable: openssl, arguments: arguments, environment: Subprocess.baseEnvironment(),
            directory: directory.path
        ).run()
    }

    @Test func testkitChainVerifiesWithOpenSSLAtTheSignedDate() async throws {
        try await TemporaryDirectory.with { directory in
            let made = try await TipLedgerBinary.run(["testkit", "init", "--out", "keys"], in: directory.path)
            try #require(made.exited(0), "\(made.summary)")
            let signing = try await TipLedgerBinary.run(
                ["testkit", "transaction", "--keys", "keys"], in: directory.path)
            try #require(signing.exited(0), "\(signing.summary)")
            let jws = try CompactJWS(signing.out)
            let signedSeconds = try #require(JSONValue.int64(jws.payload["signedDate"])) / 1000

            // The x5c header carries exactly the certificates testkit init wrote.
            let chain = try jws.certificateChain()
            #expect(chain.count == 3)
            #expect(
                chain == [
                    try directory.read("keys/leaf.cer"), try directory.read("keys/intermediate.cer"),
                    try directory.read("keys/root.cer"),
                ])

            let verifyArguments = [
                "verify", "-x509_strict", "-CAfile", "keys/root.pem", "-untrusted", "keys/intermediate.pem",
                "keys/leaf.pem",
            ]
            let atSignedDate = try await Self.openssl(
                ["verify", "-attime", String(signedSeconds)] + verifyArguments.dropFirst(), in: directory)
            #expect(atSignedDate.exited(0), "\(atSignedDate.summary)")
            #expect(atSignedDate.out == "keys/leaf.pem: OK\n")
            // The same check long before the chain existed fails: OpenSSL really looks at -attime.
            let tooEarly = try await Self.openssl(
                ["verify", "-attime", "946684800"] + verifyArguments.dropFirst(), in: directory)
            #expect(!tooEarly.exited(0), "\(tooEarly.summary)")
            // And the leaf does not verify against a root of another chain.
            let other = try await TipLedgerBinary.run(["testkit", "init", "--out", "other"], in: directory.path)
            try #require(other.exited(0))
            let wrongRoot = try await Self.openssl(
                [
                    "verify", "-attime", String(signedSeconds), "-CAfile", "other/root.pem", "-untrusted",
                    "keys/intermediate.pem", "keys/leaf.pem",
                ], in: directory)
            #expect(!wrongRoot.exited(0), "\(wrongRoot.summary)")
        }
    }

    @Test func testkitSignaturesVerifyWithOpenSSL() async throws {
        try await TemporaryDirectory.with { directory in
            let made = try await TipLedgerBinary.run(["testkit", "init", "--out", "keys"], in: directory.path)
            try #require(made.exited(0), "\(made.summary)")
            let signing = try await TipLedgerBinary.run(
                ["testkit", "transaction", "--keys", "keys", "--count", "3", "--seed", "9"], in: directory.path)
            try #require(signing.exited(0), "\(signing.summary)")
            let refund = try await TipLedgerBinary.run(
                ["testkit", "notification", "--keys", "keys", "--type", "REFUND", "--transaction", "-"],
                input: .text(signing.outLines[0] + "\n"), in: directory.path)
            try #require(refund.exited(0), "\(refund.summary)")
            let notification = try CompactJWS(webhookBody: refund.out)
            let data = try #require(notification.payload["data"] as? [String: Any])
            let nested = try CompactJWS(try #require(data["signedTransactionInfo"] as? String))
            let tokens = try signing.outLines.map { try CompactJWS($0) } + [notification, nested]

            let publicKey = try await Self.openssl(
                ["x509", "-in", "keys/leaf.pem", "-pubkey", "-noout"], in: directory)
            try #require(publicKey.exited(0), "\(publicKey.summary)")
            try directory.write(publicKey.standardOutput, to: "leaf-public.pem")

            for (index, jws) in tokens.enumerated() {
                #expect(jws.header["alg"] as? String == "ES256")
                #expect(jws.signature.count == 64, "token \(index): ES256 signatures are raw R‖S")
                let der = try #require(ECDSASignatureDER.encode(raw: jws.signature))
                try directory.write(Data(der), to: "signature-\(index).der")
                try directory.write(jws.signingInput, to: "signed-\(index).txt")
                var tampered = Array(jws.signingInput.utf8)
                tampered[tampered.count / 2] ^= 0x01
                try directory.write(Data(tampered), to: "tampered-\(index).txt")
            }
            for index in tokens.indices {
                let check = [
                    "dgst", "-sha256", "-verify", "leaf-public.pem", "-signature", "signature-\(index).der",
                ]
                async let good = Self.openssl(check + ["signed-\(index).txt"], in: directory)
                async let bad = Self.openssl(check + ["tampered-\(index).txt"], in: directory)
                let (goodResult, badResult) = try await (good, bad)
                #expect(goodResult.exited(0), "token \(index): \(goodResult.summary)")
                #expect(goodResult.out == "Verified OK\n")
                #expect(badResult.exited(1), "token \(index): \(badResult.summary)")
                #expect(badResult.out == "Verification failure\n")
            }
        }
    }

    @Test func derEncodingFollowsTheIntegerRules() throws {
        // High bit set: a zero byte keeps the integer positive. Leading zeros: dropped.
        var raw = [UInt8](repeating: 0, count: 64)
        raw[0] = 0x80
        raw[31] = 0x01
        raw[63] = 0x7f
        let der = try #require(ECDSASignatureDER.encode(raw: raw))
        let r: [UInt8] = [0x02, 0x21, 0x00, 0x80] + [UInt8](repeating: 0, count: 30) + [0x01]
        let s: [UInt8] = [0x02, 0x01, 0x7f]
        #expect(der == [0x30, UInt8(r.count + s.count)] + r + s)
        #expect(ECDSASignatureDER.encode(raw: [UInt8](repeating: 0, count: 64)) == [0x30, 6, 2, 1, 0, 2, 1, 0])
        #expect(ECDSASignatureDER.encode(raw: [UInt8](repeating: 1, count: 63)) == nil)
    }
}
