// SPDX-License-Identifier: GPL-3.0-or-later
import Testing
import TipLedgerCore

@testable import TipLedgerCLI

/// The environments the query commands (`pending`, `restore`, `report`, `finish`) keep to.
@Suite struct GlobalOptionsTests {
    func givenEnvironments(_ arguments: [String], variables: [String: String] = [:]) throws -> [AppStoreEnvironment]? {
        var scanner = ArgumentScanner(arguments)
        return try GlobalOptions(scanner: &scanner, environment: variables).givenEnvironments
    }

    @Test func noneGivenMeansEveryEnvironment() throws {
        #expect(try givenEnvironments([]) == nil)
    }

    @Test func theGivenOnesSorted() throws {
        #expect(try givenEnvironments(["--environment", "Sandbox,Production"]) == [.production, .sandbox])
        #expect(try givenEnvironments([], variables: ["TIPLEDGER_ENVIRONMENT": "Sandbox"]) == [.sandbox])
    }

    /// `verify` accepts LocalTesting payloads under Xcode and the reverse, so a query for one
    /// finds what was recorded under the other.
    @Test(arguments: ["Xcode", "LocalTesting", "Sandbox,Xcode"])
    func xcodeAndLocalTestingGoTogether(_ list: String) throws {
        let given = try #require(try givenEnvironments(["--environment", list]))
        #expect(given.contains(.xcode) && given.contains(.localTesting))
        #expect(given.contains(.sandbox) == list.contains("Sandbox"))
    }
}
