// SPDX-License-Identifier: GPL-3.0-or-later
internal import FuzzSupport
internal import TipLedgerCore
internal import TipLedgerCrypto

/// The verifier of the whole run: its header and chain caches fill as the fuzzer goes.
private let verifier = TrustedChain.shared.verifier()

/// The whole `verify` path on one line, as the pipeline takes it: `Verifier.parse(line:)` reads
/// the line once (the ledger looks repeats up by its digest), then `Verifier.verify(_:)` checks
/// what was read (see `SignedInput` for the inputs the target signs itself).
///
/// Properties: reading is deterministic and does not depend on the header cache, and the
/// digest is the SHA-256 of the token read; a verdict is deterministic, with caches warm or
/// empty alike, and `verify(line)` in one call agrees with reading then verifying; an accepted
/// line carries as evidence the token read, whose signature Foundation's readers and the leaf
/// of its `x5c` confirm, for an accepted app and environment, and a webhook body only a
/// notification; a payload Foundation cannot read as JSON is never accepted.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzVerify(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    // A line that is not UTF-8, or longer than a line may be, is refused before it is read, by
    // the CLI and HTTP alike.
    let bytes = SignedInput.line(input)
    guard bytes.count <= VerificationPolicy.maximumInputBytes, let line = String(validating: bytes, as: UTF8.self)
    else { return 0 }
    let fresh = TrustedChain.shared.verifier()
    let read = Reading(verifier, line)
    Property.require(Reading(verifier, line) == read, "reading the line again gives another result")
    Property.require(Reading(fresh, line) == read, "the header cache changes what the line reads as")

    let verdict: Verdict
    switch read.result {
    case .failure(let rejection):
        verdict = Verdict(.failure(rejection))
    case .success(let jws):
        Property.require(jws.digest == SHA256.hash(jws.token.utf8), "the digest is not the token's SHA-256")
        let result = verifier.verify(jws)
        verdict = Verdict(result)
        let again = Verdict(verifier.verify(jws))
        Property.require(again == verdict, "verifying the line again gives \(again), first \(verdict)")
        if case .success(let payload) = result { checkAccepted(payload, of: jws, line: line) }
    }
    let whole = Verdict(verifier.verify(line))
    Property.require(whole == verdict, "verify(line) gives \(whole), parse then verify \(verdict)")
    let cold = Verdict(fresh.verify(line))
    Property.require(cold == verdict, "a verifier without caches gives \(cold), the warm one \(verdict)")
    return 0
}

/// What an accepted line must be.
private func checkAccepted(_ payload: VerifiedPayload, of jws: UnverifiedJWS, line: String) {
    let evidence =
        switch payload {
        case .transaction(let verified): verified.evidence
        case .renewalInfo(let verified): verified.evidence
        case .appTransaction(let verified): verified.evidence
        case .notification(let verified): verified.evidence
        }
    Property.require(
        evidence.token == jws.token && evidence.digest == jws.digest, "the evidence is not the token read")
    Property.require(!jws.isWebhookBody || payload.kind == .notification, "a webhook body gave \(payload.kind)")
    Property.require(FoundationJWS(line: line)?.isSignedByItsLeaf == true, "accepted a token its leaf did not sign")
    Property.require(
        payload.bundleId.map(TrustedChain.shared.policy.bundleIds.contains) ?? true, "accepted another app's payload")
    Property.require(
        TrustedChain.shared.policy.environments.contains(payload.environment), "accepted another environment")
    if case .notification(let notification) = payload {
        for nested in [notification.transaction?.jws, notification.renewalInfo?.jws, notification.appTransaction?.jws] {
            guard let nested else { continue }
            Property.require(FoundationJWS(nested)?.isSignedByItsLeaf == true, "accepted an unsigned nested token")
        }
    }
}

/// What `parse(line:)` made of a line, in a form two readings can be compared in.
private struct Reading: Equatable {
    let result: Result<UnverifiedJWS, VerificationError>

    init(_ verifier: Verifier, _ line: String) {
        result = Result { () throws(VerificationError) in try verifier.parse(line: line) }
    }

    static func == (left: Reading, right: Reading) -> Bool {
        switch (left.result, right.result) {
        case (.success(let one), .success(let other)):
            one.token == other.token && one.digest == other.digest && one.isWebhookBody == other.isWebhookBody
        case (.failure(let one), .failure(let other)):
            one.code == other.code && one.message == other.message
        default:
            false
        }
    }
}
