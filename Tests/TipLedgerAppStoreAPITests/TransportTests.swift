// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Synchronization
import Testing
import TipLedgerAPITestSupport
import TipLedgerCore
import TipLedgerHTTP

@testable import TipLedgerAppStoreAPI

/// The HTTPS layer: certificates always verified, the timeouts, the bound on an answer's size,
/// and bodies that are not what Apple documents.
@Suite struct TransportTests {
    @Test func aServerWhoseCertificateAuthorityIsNotTrustedIsRefused() throws {
        let harness = try APIHarness()
        let client = try harness.client { $0.extraCertificateAuthorityFile = nil }
        let error = try #require(apiError { try client.transactionInfo(transactionId: "1234") })

        #expect(error.code == .tlsFailed)
        #expect(error.message.hasPrefix("Get Transaction Info: the TLS handshake failed"), "\(error.message)")
        #expect(error.hint?.contains("--api-ca") == true)
        #expect(harness.fake.arrivals == 0, "nothing reaches a server that is not trusted")
        #expect(harness.clock.sleeps.isEmpty, "a TLS failure is not retried")
    }

    @Test func theExtraCertificateAuthoritiesAreTrustedBesideTheSystemBundle() throws {
        let harness = try APIHarness()
        let trusted = try #require(harness.client.transport.certificateAuthorities)
        let extra = try #require(FileManager.default.contents(atPath: harness.fake.certificateAuthorityFile))
        #expect(trusted.suffix(extra.count).elementsEqual(extra))
        let bundle = try #require(CurlEasy.defaultCertificateAuthorityBundle)
        if let system = FileManager.default.contents(atPath: bundle) {
            #expect(trusted.starts(with: system))
            #expect(trusted.count == system.count + 1 + extra.count)
        }
    }

    @Test func aServerCertificateForAnotherHostIsRefused() throws {
        let harness = try APIHarness()
        let port = try #require(harness.fake.baseURL.split(separator: ":").last)
        let client = try harness.client { $0.baseURL = "https://127.0.0.1:\(port)" }
        let error = try #require(apiError { try client.transactionInfo(transactionId: "1234") })

        #expect(error.code == .tlsFailed)
        #expect(harness.fake.arrivals == 0)
    }

    @Test func anAnswerThatDoesNotComeInTimeTimesOutAndIsRetried() throws {
        let harness = try APIHarness {
            $0.requestTimeout = .milliseconds(300)
            $0.maximumAttempts = 2
        }
        defer { harness.fake.releaseStalled() }
        harness.fake.respond { _ in .stall() }
        let error = try #require(apiError { try harness.client.transactionInfo(transactionId: "1234") })

        #expect(error.code == .timedOut)
        #expect(error.message.hasSuffix("(after 2 attempts)"), "\(error.message)")
        #expect(harness.clock.sleeps.count == 1, "one backoff between the two attempts")
    }

    @Test func anAnswerOverTheSizeBoundIsAbandoned() throws {
        let harness = try APIHarness { $0.maximumResponseBytes = 1024 }
        harness.fake.reply(.bytes(Array(repeating: UInt8(ascii: " "), count: 64 * 1024)))
        let error = try #require(apiError { try harness.client.transactionInfo(transactionId: "1234") })

        #expect(error.code == .responseTooLarge)
        #expect(error.message == "Get Transaction Info: the answer is larger than the 1024 bytes read")
        #expect(harness.fake.arrivals == 1, "an oversized answer is not retried")
    }

    @Test func anAnswerOfExactlyTheBoundIsRead() throws {
        let harness = try APIHarness { $0.maximumResponseBytes = 1024 }
        let json = Array(#"{"signedTransactionInfo":"signed"}"#.utf8)
        harness.fake.reply(.bytes(json + Array(repeating: UInt8(ascii: " "), count: 1024 - json.count)))
        let response = try harness.client.transactionInfo(transactionId: "1234")

        #expect(response.signedTransactionInfo == "signed")
    }

    @Test(arguments: [
        (#"{"signedTransactionInfo": "#, "is not JSON"),
        ("[]", "is not a JSON object"),
        (#"{"signedTransactionInfo": 5}"#, "field signedTransactionInfo: expected a string, got an integer"),
    ])
    func aBodyThatIsNotTheDocumentedJSONIsMalformed(_ body: String, _ message: String) throws {
        let harness = try APIHarness()
        harness.fake.reply(.json(body))
        let error = try #require(apiError { try harness.client.transactionInfo(transactionId: "1234") })

        #expect(error.code == .malformedResponse)
        #expect(error.message.contains(message), "\(error.message)")
        #expect(harness.fake.arrivals == 1)
    }

    @Test func nothingListeningIsAConnectionFailureTriedAgain() throws {
        let harness = try APIHarness { $0.maximumAttempts = 2 }
        let refusing = try RefusingPort()
        let client = try harness.client { $0.baseURL = "https://localhost:\(refusing.port)" }
        let error = try #require(apiError { try client.transactionInfo(transactionId: "1234") })

        #expect(error.code == .connectionFailed)
        #expect(harness.clock.sleeps.count == 1)
    }

    @Test func callsOnManyThreadsAtOnceShareOneClient() throws {
        let harness = try APIHarness()
        harness.fake.respond { _ in .fixture("transactionInfoResponse.json") }
        let answers = Mutex<[String?]>([])
        DispatchQueue.concurrentPerform(iterations: 16) { index in
            let answer = try? harness.client.transactionInfo(transactionId: "\(index)").signedTransactionInfo
            answers.withLock { $0.append(answer) }
        }

        #expect(answers.withLock { $0 } == Array(repeating: "signed_transaction_info_value", count: 16))
        #expect(Set(harness.fake.requests.compactMap(\.parameter)) == Set((0..<16).map { "\($0)" }))
        #expect(harness.fake.rejections.isEmpty)
    }

    @Test func aServerRefusesATLSKeyItCannotRead() throws {
        var configuration = HTTPServerConfiguration(listenAddress: try ListenAddress(host: "127.0.0.1", port: 0))
        let authority = try TestTLSAuthority()
        configuration.tls = TLSIdentity(
            certificateChainPEM: authority.serverIdentity.certificateChainPEM, privateKeyPEM: "not a key")
        #expect(throws: HTTPServerError.self) {
            _ = try HTTPServer(configuration: configuration) { _ in HTTPResponse(status: 200) }
        }
    }
}
