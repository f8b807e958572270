// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerCore
import TipLedgerTestSupport

/// tipledger against Apple's App Store Server Library on real payloads published in public files
/// (`Tests/Fixtures/real-public`): the same verdict for every one, and the same Apple status
/// for every rejection but the documented differences.
@Suite struct AppleConformanceTests {
    @Test func everyRecordIsLoadedOnceWithApplesVerdict() {
        #expect(PublicVector.all.count == 81)
        #expect(PublicVector.all.filter { $0.appleStatus == nil }.count == 71)
        for source in PublicVector.knownDifferences.keys {
            #expect(PublicVector.all.filter { $0.source == source }.count == 1, "not one record from \(source)")
        }
    }

    @Test(arguments: PublicVector.all)
    func tipledgerGivesApplesVerdict(_ vector: PublicVector) throws {
        let verifier = try vector.verifier()
        let rejection: VerificationError
        do {
            let verified = try verifier.verifyPayload(vector.token, as: vector.kind)
            guard vector.appleStatus == nil else {
                Issue.record("verified; Apple's library rejects it as \(vector.appleStatus ?? "")")
                return
            }
            #expect(verified.kind == vector.kind)
            #expect(verified.environment == vector.environment)
            return
        } catch {
            rejection = error
        }
        let appleStatus = try #require(vector.appleStatus, "rejected as \(rejection); Apple's library accepts it")
        if let difference = PublicVector.knownDifferences[vector.source] {
            // The difference is still the one documented, and still a difference.
            #expect(appleStatus == difference.appleStatus)
            #expect(rejection.code == difference.code, "\(rejection) (\(difference.reason))")
            #expect(rejection.appleStatus != appleStatus, "no longer differs: \(difference.reason)")
        } else {
            #expect(rejection.appleStatus == appleStatus, "\(rejection)")
        }
    }
}
