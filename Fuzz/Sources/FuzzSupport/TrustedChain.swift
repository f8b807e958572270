// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore
public import TipLedgerCrypto

/// The signing chain the fuzz targets trust: a test PKI minted when the target starts (valid
/// around `referenceMilliseconds`, as the tests' is), beside Apple's root, so that the real
/// tokens of Tests/Fixtures/real verify as well as the tokens a target signs itself.
public final class TrustedChain: Sendable {
    /// The one chain of this process.
    public static let shared = TrustedChain()

    /// The verifiers' clock: 2026-01-01T00:00:00Z, inside the test chain's validity.
    public static let referenceMilliseconds: Int64 = 1_767_225_600_000

    /// The bundle id the seeds sign for (the test suite's).
    public static let bundleId = "com.example.tips"
    /// The app Apple id the seeds sign for.
    public static let appAppleId: Int64 = 1_234_567_890

    public let pki: TestPKI
    public let signer: JWSSigner
    public let trustStore: TrustStore
    public let policy: VerificationPolicy

    private init() {
        let reference = TrustedChain.referenceMilliseconds / 1000
        do {
            pki = try TestPKI.mint(
                TestPKI.Options(validFrom: reference - 180 * 86_400, validUntil: reference + 180 * 86_400))
            trustStore = try TrustStore(roots: [pki.root, TrustAnchors.appleRootCAG3])
        } catch {
            preconditionFailure("cannot mint the fuzzing chain: \(error)")
        }
        signer = JWSSigner(pki: pki)
        // The seeds' bundle id and those of the real tokens in Tests/Fixtures/real.
        let bundleIds: Set<String> = [
            TrustedChain.bundleId, "com.loki-project.loki-messenger", "com.goodheartapp", "com.audaos.audarecorder",
            "com.jrjj.keysns", "club.omnichess.ios", "com.Abilities", "Com.VoiceRecording.Telephone", "com.example",
            "com.example.naturelab.backyardbirds.example",
        ]
        policy = VerificationPolicy(
            bundleIds: bundleIds, environments: [.production, .sandbox, .xcode], appAppleId: TrustedChain.appAppleId)
    }

    /// A new verifier of this chain, its caches empty.
    public func verifier() -> Verifier {
        Verifier(
            trustStore: trustStore, policy: policy,
            clock: .fixed(AppleDate(wholeMilliseconds: TrustedChain.referenceMilliseconds)))
    }

    /// `payload` (any bytes) signed by the chain's leaf under the App Store's header.
    public func sign(_ payload: [UInt8]) -> String {
        do {
            return try signer.sign(payload: payload)
        } catch {
            preconditionFailure("cannot sign: \(error)")
        }
    }
}
