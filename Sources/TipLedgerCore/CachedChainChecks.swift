// SPDX-License-Identifier: GPL-3.0-or-later

/// The header and chain checks (`HeaderCheck`, `ChainCheck`) behind the two caches that let a
/// repeated header or chain skip them: what they decide depends only on the header's bytes, the
/// certificates and the verifier, except the chain's validity at each payload's own time, which
/// is checked every time (see docs/performance.md, "Verifying").
///
/// - A header seen before whose chain was validated (`KnownHeader.chain`) skips both, when the
///   chain is valid at the effective time and the header was read through this verifier's own
///   cache (a line read by another verifier names a chain validated against its roots).
/// - Otherwise, a chain validated before under another header (`ChainCache`, by the exact text of
///   `x5c[0]` and `x5c[1]`) skips the chain check, when valid at the effective time. Outside that
///   validity, which is that of the root OpenSSL anchored the chain at, another trusted root (one
///   name and key, reissued with another validity) may still anchor the chain, so it is validated
///   again, as a verifier without the cache would; the cached entry stays as it is.
struct CachedChainChecks: VerificationCheck {
    let header = HeaderCheck()
    let chain = ChainCheck()

    func check(_ token: inout TokenUnderCheck, by verifier: Verifier) throws(VerificationError) {
        let seconds = token.effectiveDate.wholeSeconds
        if let resolved = token.jws.knownHeader.chain, token.jws.headerCache === verifier.headers,
            resolved.isValid(atSeconds: seconds)
        {
            token.signer = Signer(key: resolved.leafKey, isLocalTesting: false)
            token.chain = resolved.chain
            return
        }
        try header.check(&token, by: verifier)
        let x5c = token.certificates
        guard x5c.count == 3 else { return try chain.check(&token, by: verifier) }
        let key = ChainCache.Key(leaf: x5c[0], intermediate: x5c[1])
        let cached = verifier.chains.entry(for: key)
        if let entry = cached {
            if !entry.hasSeenThirdCertificate(x5c[2]) {
                _ = try ChainCheck.certificate(x5c[2], index: 2)
                verifier.chains.noteThirdCertificate(x5c[2], for: key)
            }
            remember(entry, for: token.jws, in: verifier)
            if entry.isValid(atSeconds: seconds) {
                token.signer = Signer(key: entry.leafKey, isLocalTesting: false)
                token.chain = entry.chain
                return
            }
        }
        try chain.check(&token, by: verifier)
        token.chain = token.validatedChain?.chain
        if cached == nil, let entry = token.validatedChain {
            verifier.chains.store(entry, for: key)
            remember(entry, for: token.jws, in: verifier)
        }
    }

    /// Notes in the header cache that `jws`'s header names the validated `chain`.
    private func remember(_ chain: ChainCache.Entry, for jws: UnverifiedJWS, in verifier: Verifier) {
        let known = jws.knownHeader
        guard known.chain == nil else { return }
        jws.withHeaderSegment { verifier.headers.resolve(known, for: $0, chain: chain) }
    }
}
