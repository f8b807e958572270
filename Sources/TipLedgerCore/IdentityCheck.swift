// SPDX-License-Identifier: GPL-3.0-or-later

/// Step 8 of docs/verification.md, in the order Apple's library uses: bundle id, app Apple id,
/// environment, of the identity the payload claims (`ClaimedIdentity`).
struct IdentityCheck: VerificationCheck {
    func check(_ token: inout TokenUnderCheck, by verifier: Verifier) throws(VerificationError) {
        guard let claimed = token.claim, let signer = token.signer else {
            preconditionFailure("the identity is checked after the model and the chain")
        }
        let policy = verifier.policy
        if claimed.checksBundle {
            guard let bundleId = claimed.bundleId else {
                throw VerificationError(.wrongBundleId, "the payload has no bundleId")
            }
            guard policy.bundleIds.contains(bundleId) else {
                throw VerificationError(.wrongBundleId, "bundleId \(bundleId) is not a configured bundle id")
            }
        }
        // Apple's libraries check the app Apple id only when they verify for Production (Apple
        // leaves it out elsewhere), before the environment. So it is checked when Production is
        // accepted, except for a payload of another accepted environment, which a verifier for
        // that environment would take.
        let rawEnvironment = claimed.rawEnvironment
        let production = AppStoreEnvironment.production.rawValue
        if let expected = policy.appAppleId, policy.environments.contains(.production),
            rawEnvironment == production || !policy.accepts(rawEnvironment: rawEnvironment)
        {
            if let appAppleId = claimed.appAppleId, appAppleId != expected {
                throw VerificationError(.wrongAppAppleId, "appAppleId \(appAppleId) is not the configured \(expected)")
            }
            if claimed.carriesAppAppleId && claimed.appAppleId == nil && rawEnvironment == production {
                throw VerificationError(.wrongAppAppleId, "a Production payload must carry appAppleId")
            }
        }
        guard let rawEnvironment else {
            throw VerificationError(.wrongEnvironment, "the payload has no environment claim")
        }
        guard policy.accepts(rawEnvironment: rawEnvironment),
            let environment = AppStoreEnvironment(rawValue: rawEnvironment)
        else {
            throw VerificationError.environmentNotAccepted(rawEnvironment)
        }
        if signer.isLocalTesting && !environment.isLocalTesting {
            throw VerificationError(
                .wrongEnvironment, "signed by an Xcode testing certificate but claims \(environment.rawValue)")
        }
        // LocalTesting is Apple's other name for Xcode's: one environment, so the ledger keys,
        // answers and totals name it one way (the evidence keeps the payload's own word).
        token.environment = environment.isLocalTesting ? .xcode : environment
    }
}
