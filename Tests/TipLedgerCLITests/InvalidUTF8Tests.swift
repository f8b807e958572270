// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing
import TipLedgerCore
import TipLedgerHTTP
import TipLedgerStore
import TipLedgerTestSupport

/// Bytes that are not UTF-8 are refused alike by `verify` and `serve`, wherever they sit: in
/// what was sent or in what a token decodes to; and `verify` goes on with the next line.
@Suite struct InvalidUTF8Tests {
    /// Where the odd bytes sit: the input (one `verify` line, one request body), and the route
    /// `serve` takes it on.
    struct Placement: Sendable, CustomTestStringConvertible {
        let name: String
        let route: String
        let input: @Sendable () throws -> [UInt8]
        var testDescription: String { name }
    }

    /// A signed TEST notification, as `serve` would record it.
    static func notification(_ number: Int) throws -> String {
        try TestChains.notification(type: "TEST", uuid: TestChains.uuid(number))
    }

    /// `text` as UTF-8 with every `~` replaced by `byte`.
    static func bytes(_ text: String, with byte: UInt8) -> [UInt8] {
        text.utf8.map { $0 == UInt8(ascii: "~") ? byte : $0 }
    }

    static let placements = [
        Placement(name: "a webhook body's member that nobody reads", route: "/v1/notifications") {
            bytes(#"{"signedPayload":""# + (try notification(1)) + #"","note":"~"}"#, with: 0xff)
        },
        Placement(name: "a webhook body, after its token", route: "/v1/notifications") {
            bytes(#"{"signedPayload":""# + (try notification(2)) + #"~"}"#, with: 0xc3)
        },
        Placement(name: "the signed payload of a notification", route: "/v1/notifications") {
            let payload = bytes(TestPayloads.notification(["notificationType": #""TEST~""#]), with: 0xff)
            return Array(WebhookBody.wrapping(try JWSSigner(pki: TestChains.standard).sign(payload: payload)).utf8)
        },
        Placement(name: "after a bare transaction token", route: "/v1/transactions") {
            bytes(try TestChains.transaction(id: "2000000000000401") + "~", with: 0x80)
        },
    ]

    @Test(arguments: placements)
    func bytesThatAreNotUTF8AreRefusedAlikeByVerifyAndServe(_ placement: Placement) async throws {
        let input = try placement.input()
        let next = WebhookBody.wrapping(try Self.notification(99))
        try await TemporaryDirectory.with { directory in
            let root = try directory.write(Data(TestChains.standard.root.derEncoded), to: "root.cer")
            let verifying = try await TipLedgerBinary.run(
                [
                    "verify", "--format", "json", "--dry-run", "--root", root, "--bundle-id", "com.example.tips",
                    "--environment", "Sandbox",
                ],
                input: .bytes(Data(input + Array("\n\(next)\n".utf8))), in: directory.path)

            let ledger = try Ledger.open(
                path: directory.file("serve.sqlite"),
                clock: .fixed(AppleDate(wholeMilliseconds: TestChains.referenceMilliseconds)))
            let service = TipLedgerService(verifier: TestChains.standardVerifier, ledger: ledger, apiToken: nil)
            let served = service.handle(HTTPRequest(method: "POST", path: placement.route, body: input))

            #expect(verifying.exited(1), "\(verifying.summary)")
            let lines = try verifying.jsonLines()
            try #require(lines.count == 2, "\(verifying.summary)")
            #expect(lines[0]["ok"] as? Bool == false, "\(lines[0])")
            #expect(lines[0]["error"] as? String == "malformed_jws", "\(lines[0])")
            #expect((lines[0]["message"] as? String)?.contains("UTF-8") == true, "\(lines[0])")
            #expect(lines[1]["ok"] as? Bool == true, "the next line is verified: \(lines[1])")

            #expect([400, 422].contains(served.status))
            let answer = try JSONValue.object(Data(served.body))
            #expect(answer["error"] as? String == lines[0]["error"] as? String, "\(answer)")
            let stored = try await SQLiteShell.value(
                "serve.sqlite", "SELECT count(*) FROM evidence", in: directory.path)
            #expect(stored == "0")
        }
    }
}
