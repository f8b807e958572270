// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TipLedgerAPITestSupport
import TipLedgerCore
import TipLedgerCrypto
import TipLedgerRevocation
import TipLedgerTestSupport

/// A test PKI valid around the real time, whose intermediate and leaf name OCSP responders on
/// loopback in their Authority Information Access, with those responders running: the root's
/// (answering for the intermediate) and the intermediate's (answering for the leaf).
///
/// The real time, because `openssl ocsp` dates its responses by the system clock; the
/// verifier's clock starts there and moves only when a test moves it.
final class OnlineChain {
    /// How the responders are set up; the defaults answer `good` for both certificates.
    struct Setup {
        var revokedLeaf = false
        var revokedIntermediate = false
        /// The leaf's responder signs with a certificate of another PKI, not the issuer's.
        var forgedLeafResponses = false
        /// The leaf's responder signs with a responder certificate the intermediate issued for
        /// OCSP signing (RFC 6960 section 4.2.2.2), as Apple's responders do.
        var delegatedLeafResponder = false
        /// No responder listens on the leaf's responder port.
        var leafResponderDown = false
        /// The leaf's responder is a test's own, on this port; none is started for it.
        var leafResponderPort: UInt16?
        /// `nextUpdate` of the responses, in minutes after they are made.
        var minutes = 60
    }

    let pki: TestPKI
    let clock: ManualClock
    let rootResponder: OCSPResponder
    /// Nil when `leafResponderDown` or the test brings its own (`leafResponderPort`).
    let leafResponder: OCSPResponder?
    private let directory: String
    /// Holds the leaf's responder port refused, when its responder is down.
    private let refusing: RefusingPort?

    init(_ setup: Setup = Setup()) throws {
        // The ports are chosen free, then named in the certificates before the responders take
        // them; another test's socket may take one meanwhile, and the responder then fails to
        // listen. A new chain on new ports is tried then.
        var attempt = 1
        while true {
            do {
                let started = try Self.start(setup)
                (pki, clock, rootResponder, leafResponder) =
                    (started.pki, started.clock, started.rootResponder, started.leafResponder)
                (directory, refusing) = (started.directory, started.refusing)
                return
            } catch let failure as ResponderFailed {
                guard attempt < 3 else { throw failure }
                attempt += 1
            }
        }
    }

    private struct Started {
        let pki: TestPKI
        let clock: ManualClock
        let rootResponder: OCSPResponder
        let leafResponder: OCSPResponder?
        let directory: String
        let refusing: RefusingPort?
    }

    private static func start(_ setup: Setup) throws -> Started {
        let now = Int64(Date().timeIntervalSince1970)
        let directory = NSTemporaryDirectory() + "tipledger-ocsp-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        do {
            let rootPort = try OCSPResponder.freePort()
            let refusing = setup.leafResponderDown ? try RefusingPort() : nil
            let leafPort = try setup.leafResponderPort ?? refusing?.port ?? OCSPResponder.freePort()
            let pki = TestChains.mint { options in
                options.notBefore = now - 86_400
                options.notAfter = now + 7 * 86_400
                options.intermediateOCSPURL = "http://127.0.0.1:\(rootPort)/"
                options.leafOCSPURL = "http://127.0.0.1:\(leafPort)/"
            }
            let rootResponder = try OCSPResponder(
                port: rootPort, issuer: pki.root, signer: (pki.root, pki.rootKey),
                index: [.init(serialNumber: 2, revoked: setup.revokedIntermediate)], minutes: setup.minutes,
                directory: directory, name: "root")
            let signer: (Certificate, PrivateKey)
            if setup.forgedLeafResponses {
                signer = (TestChains.other.intermediate, TestChains.other.intermediateKey)
            } else if setup.delegatedLeafResponder {
                signer = try delegatedResponder(of: pki, now: now)
            } else {
                signer = (pki.intermediate, pki.intermediateKey)
            }
            let leafResponder =
                setup.leafResponderDown || setup.leafResponderPort != nil
                ? nil
                : try OCSPResponder(
                    port: leafPort, issuer: pki.intermediate, signer: signer,
                    index: [.init(serialNumber: 3, revoked: setup.revokedLeaf)], minutes: setup.minutes,
                    directory: directory, name: "intermediate")
            return Started(
                pki: pki, clock: ManualClock(startingAt: AppleDate(wholeMilliseconds: now * 1000)),
                rootResponder: rootResponder, leafResponder: leafResponder, directory: directory, refusing: refusing)
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A responder certificate and key, issued by `pki`'s intermediate for OCSP signing only.
    static func delegatedResponder(of pki: TestPKI, now: Int64) throws -> (Certificate, PrivateKey) {
        let key = try PrivateKey.generate(curve: .p256)
        var template = CertificateTemplate(
            subject: [("CN", "tipledger TEST OCSP Responder")], serialNumber: 4, notBefore: now - 86_400,
            notAfter: now + 7 * 86_400, isCA: false, keyUsage: "critical,digitalSignature")
        template.extendedKeyUsage = "OCSPSigning"
        return (try Certificate.mint(template, subjectKey: key, issuer: (pki.intermediate, pki.intermediateKey)), key)
    }

    /// A verifier trusting the PKI's root, on the chain's clock, checking online in `mode` with
    /// `checker`.
    func verifier(_ mode: OnlineChecks.Mode, checker: OCSPChecker) throws -> Verifier {
        Verifier(
            trustStore: try TrustStore(roots: [pki.root]),
            policy: VerificationPolicy(bundleIds: ["com.example.tips"], environments: [.sandbox], appAppleId: nil),
            clock: clock.wallClock, onlineChecks: OnlineChecks(mode: mode, checker: checker))
    }

    /// A checker with short timeouts, for a responder on loopback.
    static func checker() -> OCSPChecker {
        var limits = OCSPChecker.Limits()
        limits.connectTimeout = .seconds(5)
        limits.requestTimeout = .seconds(20)
        return OCSPChecker(version: "test", limits: limits)
    }

    /// A signed transaction from the PKI, signed at the clock's time.
    func transaction(id: String = "2000000000000001") throws -> String {
        try TestChains.transaction(id: id, pki: pki, purchaseDate: clock.now.wholeMilliseconds)
    }
}
