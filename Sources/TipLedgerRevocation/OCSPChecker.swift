// SPDX-License-Identifier: GPL-3.0-or-later
internal import Synchronization
internal import TipLedgerAppStoreAPI
public import TipLedgerCore
public import TipLedgerCrypto

/// Revocation checks with OCSP (RFC 6960): asks the responder that a certificate's Authority
/// Information Access names, over HTTP(S) through the App Store Server API's libcurl transport,
/// and keeps each trustworthy answer until its `nextUpdate` (`OCSPCache`). A certificate is
/// asked about by one thread at a time; the others verifying meanwhile wait for its answer
/// (`AnswersInFlight`).
///
/// Every request is bounded: one responder URL per certificate (the first `http` or `https`
/// one), the connect and whole-exchange timeouts and the answer's size of `Limits`. A
/// certificate whose responder gave no trustworthy answer is not asked about again for
/// `Limits.retryAfterFailure`, so a responder that is down costs one timeout per interval, not
/// one per token. Safe to share between threads.
public final class OCSPChecker: RevocationChecker {
    /// The bounds of the checks.
    public struct Limits: Sendable {
        /// The longest a connection to a responder may take to set up.
        public var connectTimeout: Duration = .seconds(5)
        /// The longest one exchange with a responder may take.
        public var requestTimeout: Duration = .seconds(10)
        /// The largest response read; real ones are 1–3 KB.
        public var maximumResponseBytes = 64 << 10
        /// How far a response's `thisUpdate` and `nextUpdate` may be off the verifier's time, in
        /// seconds: clocks differ a little.
        public var skewSeconds: Int64 = 300
        /// How old a response without `nextUpdate` may be, in seconds.
        public var maximumAgeSeconds: Int64 = 86_400
        /// How long, in seconds, a certificate whose responder failed is not asked about again.
        public var retryAfterFailureSeconds: Int64 = 60
        /// The most answers kept.
        public var cacheCapacity = 256

        public init() {}
    }

    let limits: Limits
    private let transport: HTTPSTransport
    private let cache: OCSPCache
    private let inFlight = AnswersInFlight()
    private let counters = Mutex(RevocationCounts())

    /// - Parameter version: tipledger's version, for the `User-Agent`.
    public init(version: String, limits: Limits = Limits()) {
        self.limits = limits
        transport = HTTPSTransport(
            userAgent: "tipledger/\(version)", connectTimeout: limits.connectTimeout,
            requestTimeout: limits.requestTimeout,
            maximumResponseBytes: limits.maximumResponseBytes, allowsPlainHTTP: true, extraCertificateAuthorities: nil)
        cache = OCSPCache(capacity: limits.cacheCapacity)
    }

    public var counts: RevocationCounts {
        var counts = counters.withLock { $0 }
        counts.sharedAnswers = inFlight.shared
        return counts
    }

    public func status(
        of certificate: Certificate, issuedBy issuer: Certificate, in chain: ValidatedChain, at date: AppleDate
    ) -> RevocationStatus {
        let key = OCSPCache.Key(certificate: certificate.sha256Fingerprint, issuer: issuer.sha256Fingerprint)
        let seconds = date.wholeSeconds
        if let kept = kept(key, atSeconds: seconds) { return tallied(kept) }
        let status = inFlight.answer(for: key) {
            // A request that ended since the look above may have left its answer.
            kept(key, atSeconds: seconds)
                ?? ask(about: certificate, issuedBy: issuer, in: chain, atSeconds: seconds, key: key)
        }
        return tallied(status)
    }

    /// The status kept for `key` at `seconds`, counted as a hit; nil when none holds.
    private func kept(_ key: OCSPCache.Key, atSeconds seconds: Int64) -> RevocationStatus? {
        guard let status = cache.status(for: key, atSeconds: seconds) else { return nil }
        counters.withLock { $0.cacheHits += 1 }
        return status
    }

    /// Counts `status` as found (revoked or unavailable) and returns it.
    private func tallied(_ status: RevocationStatus) -> RevocationStatus {
        counters.withLock { counts in
            switch status {
            case .good: break
            case .revoked: counts.revoked += 1
            case .unavailable: counts.unavailable += 1
            }
        }
        return status
    }

    /// Asks the certificate's responder, keeps what it answers, and returns the status.
    private func ask(
        about certificate: Certificate, issuedBy issuer: Certificate, in chain: ValidatedChain,
        atSeconds seconds: Int64,
        key: OCSPCache.Key
    ) -> RevocationStatus {
        let status: RevocationStatus
        var keepUntil: Int64 = seconds + limits.retryAfterFailureSeconds
        switch answer(about: certificate, issuedBy: issuer, in: chain, atSeconds: seconds) {
        case .success(let answer):
            switch answer.status {
            case .good:
                status = .good
            case .revoked(let revokedAt, let reason):
                let since = AppleDate(wholeMilliseconds: revokedAt * 1000)
                status = .revoked("since \(since)" + (reason >= 0 ? ", reason \(reason) (RFC 5280 CRLReason)" : ""))
            case .unknown:
                status = .unavailable("its responder does not know it")
            }
            // An answer without nextUpdate is never kept: newer information is always available.
            keepUntil = answer.nextUpdate ?? seconds
        case .failure(let failure):
            status = .unavailable(failure.reason)
        }
        if keepUntil > seconds { cache.keep(status, for: key, until: keepUntil) }
        return status
    }

    /// The responder's verified answer, or why there is none.
    private func answer(
        about certificate: Certificate, issuedBy issuer: Certificate, in chain: ValidatedChain, atSeconds seconds: Int64
    ) -> Result<OCSPAnswer, OCSPFailure> {
        guard let url = certificate.ocspURLs.first(where: { $0.hasPrefix("http://") || $0.hasPrefix("https://") })
        else {
            return .failure(OCSPFailure("the certificate names no OCSP responder"))
        }
        let request: OCSPRequest
        do {
            request = try OCSPRequest(for: certificate, issuedBy: issuer)
        } catch {
            return .failure(OCSPFailure("cannot build the OCSP request: \(error)"))
        }
        counters.withLock { $0.requests += 1 }
        let response: HTTPSTransport.Response
        do {
            response = try transport.perform(
                HTTPSTransport.Request(
                    method: "POST", url: url, headers: ["Accept: application/ocsp-response"], body: request.derEncoded,
                    contentType: "application/ocsp-request"))
        } catch {
            return .failure(OCSPFailure("its responder cannot be reached: \(error.message)"))
        }
        guard response.status == 200 else {
            return .failure(OCSPFailure("its responder answered HTTP \(response.status)"))
        }
        return request.check(
            response: response.body, roots: [chain.root], intermediates: [chain.intermediate], atSeconds: seconds,
            skew: limits.skewSeconds, maximumAge: limits.maximumAgeSeconds)
    }
}
