// SPDX-License-Identifier: GPL-3.0-or-later
internal import FuzzSupport
internal import TipLedgerCore

/// The verifier of the whole run: its header and chain caches fill as the fuzzer goes.
private let verifier = TrustedChain.shared.verifier()

/// The whole `verify` path on one line (see `SignedInput` for the signed inputs).
///
/// Properties: a verdict is deterministic, with caches warm or empty alike; the token digest
/// the pipeline keys the ledger on does not depend on the header cache; an accepted line
/// carries a token whose signature Foundation's readers and the leaf of its `x5c` confirm, for
/// an accepted app and environment; a payload Foundation cannot read as JSON is never accepted.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzVerify(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    // A line that is not UTF-8 is refused before it is verified, by the CLI and HTTP alike.
    guard let line = String(validating: SignedInput.line(input), as: UTF8.self) else { return 0 }
    let result = verifier.verify(line)
    let verdict = Verdict(result)
    let again = Verdict(verifier.verify(line))
    Property.require(again == verdict, "verifying the line again gives \(again), first \(verdict)")
    let fresh = Verdict(TrustedChain.shared.verifier().verify(line))
    Property.require(fresh == verdict, "a verifier without caches gives \(fresh), the warm one \(verdict)")
    Property.require(
        verifier.tokenDigest(ofLine: line) == UnverifiedJWS.tokenDigest(ofLine: line),
        "the token digest depends on the header cache")
    guard case .success(let payload) = result else { return 0 }
    let jws = FoundationJWS(line: line)
    Property.require(jws?.isSignedByItsLeaf == true, "accepted a line whose token its leaf did not sign: \(verdict)")
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
    return 0
}
