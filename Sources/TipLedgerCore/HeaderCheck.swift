// SPDX-License-Identifier: GPL-3.0-or-later

/// Step 3 of docs/verification.md: the header asks for ES256 and no critical extension, and
/// names a chain of three certificates (or one, Xcode's, when the Xcode environment is
/// accepted) as strings.
struct HeaderCheck: VerificationCheck {
    func check(_ token: inout TokenUnderCheck, by verifier: Verifier) throws(VerificationError) {
        let header = token.jws.header
        guard case .string("ES256")? = header.value(named: "alg") else {
            let found = header.value(named: "alg")?.stringValue.map { "\"\($0.prefix(20))\"" } ?? "no alg"
            throw VerificationError(.unsupportedAlgorithm, "alg must be ES256, found \(found)")
        }
        guard header.value(named: "crit") == nil else {
            throw VerificationError(
                .unsupportedAlgorithm, "the header has crit, and no critical extension is understood")
        }
        token.certificates = try certificates(header, acceptingXcode: verifier.policy.acceptsLocalTesting)
    }

    private func certificates(_ header: JSONObject, acceptingXcode: Bool) throws(VerificationError) -> [String] {
        guard case .array(let entries)? = header.value(named: "x5c") else {
            throw VerificationError(.invalidChainLength, "the header has no x5c certificate chain")
        }
        let allowed = acceptingXcode ? "1 (Xcode) or 3" : "3"
        guard entries.count == 3 || (entries.count == 1 && acceptingXcode) else {
            let count = entries.count == 1 ? "1 certificate" : "\(entries.count) certificates"
            // One self-signed certificate is how Xcode's StoreKit testing signs.
            let xcode = entries.count == 1 ? "; Xcode signs with one, accepted with the Xcode environment" : ""
            throw VerificationError(.invalidChainLength, "x5c has \(count), expected \(allowed)\(xcode)")
        }
        var texts: [String] = []
        for (index, entry) in entries.enumerated() {
            guard case .string(let text) = entry else {
                throw VerificationError(.invalidCertificate, "x5c[\(index)] is \(entry.typeName), not a string")
            }
            texts.append(text)
        }
        return texts
    }
}
