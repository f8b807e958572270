// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing

/// `testkit init` into a directory that already holds a chain: refused unless `--force`, since
/// every token signed with the old chain stops verifying.
@Suite struct TestkitInitTests {
    static let files = ["root", "intermediate", "leaf"].flatMap { ["\($0).cer", "\($0).pem", "\($0).key"] }

    static func contents(of directory: TemporaryDirectory) throws -> [String: Data] {
        var contents: [String: Data] = [:]
        for file in files { contents[file] = try directory.read("keys/\(file)") }
        return contents
    }

    /// A year after the moment the tests run: a leaf valid from then is not valid now.
    static let aYearFromNow = EndToEndTests.iso(Date() + 365 * 86_400)

    /// A chain made as asked, with a hint when the leaf was cut to its issuers' validity or is
    /// not valid now; none for the defaults.
    @Test(arguments: [
        ([String](), [String]()),
        (["--days", "10"], ["hint: the leaf is valid from"]),
        (["--not-before", aYearFromNow], ["hint: the leaf is valid from"]),
        (["--days", "900", "--leaf-days", "1000"], ["hint: the leaf is valid for 900 days"]),
    ])
    func aChainNotValidNowIsMadeWithAHint(_ options: [String], _ hints: [String]) async throws {
        try await TemporaryDirectory.with { directory in
            let result = try await TipLedgerBinary.run(
                ["testkit", "init", "--out", "keys"] + options, in: directory.path)
            #expect(result.exited(0), "\(result.summary)")
            #expect(result.errLines.count == hints.count, "\(result.err)")
            for (line, hint) in zip(result.errLines, hints) { #expect(line.hasPrefix(hint), "\(line)") }
        }
    }

    @Test func aSecondInitIsRefusedAndChangesNothing() async throws {
        try await TemporaryDirectory.with { directory in
            let first = try await TipLedgerBinary.run(["testkit", "init", "--out", "keys"], in: directory.path)
            try #require(first.exited(0), "\(first.summary)")
            let before = try Self.contents(of: directory)

            let second = try await TipLedgerBinary.run(["testkit", "init", "--out", "keys"], in: directory.path)
            #expect(second.exited(64), "\(second.summary)")
            ExitStatusTests.expectErrorLines(
                second, containing: "keys already holds \(Self.files.joined(separator: ", "))", hint: true)
            #expect(second.errLines.last?.contains("--force") == true, "\(second.err)")
            #expect(try Self.contents(of: directory) == before)
        }
    }

    @Test func oneExistingFileIsEnoughToRefuseAndNothingElseIsWritten() async throws {
        try await TemporaryDirectory.with { directory in
            try FileManager.default.createDirectory(atPath: directory.file("keys"), withIntermediateDirectories: true)
            try directory.write("keep me", to: "keys/leaf.key")
            let result = try await TipLedgerBinary.run(["testkit", "init", "--out", "keys"], in: directory.path)
            #expect(result.exited(64), "\(result.summary)")
            ExitStatusTests.expectErrorLines(result, containing: "keys already holds leaf.key", hint: true)
            #expect(try directory.read("keys/leaf.key") == Data("keep me".utf8))
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("keys")) == ["leaf.key"])
        }
    }

    @Test func aFileWhereTheDirectoryGoesIsNamedAsTheReason() async throws {
        try await TemporaryDirectory.with { directory in
            try directory.write("notes\n", to: "keys")
            let result = try await TipLedgerBinary.run(["testkit", "init", "--out", "keys"], in: directory.path)
            #expect(result.exited(74), "\(result.summary)")
            #expect(result.errLines == ["error: cannot create the directory keys: a file of that name is in the way"])
            #expect(try directory.read("keys") == Data("notes\n".utf8))
            let below = try await TipLedgerBinary.run(["testkit", "init", "--out", "keys/test"], in: directory.path)
            #expect(below.exited(74), "\(below.summary)")
            #expect(below.errLines == ["error: cannot create the directory keys/test: Not a directory"])
        }
    }

    /// Even under a umask that lets everyone read new files, the keys are the owner's alone,
    /// the certificates and the directories made for them readable by all, and no file is left
    /// half-written beside them.
    @Test func keysArePrivateWhateverTheUmask() async throws {
        try await TemporaryDirectory.with { directory in
            let result = try await Subprocess(
                executable: "/bin/sh",
                arguments: [
                    "-c", #"umask 000 && exec "$@""#, "sh", try TipLedgerBinary.path(), "testkit", "init",
                    "--out", "project/keys",
                ],
                environment: Subprocess.baseEnvironment(), directory: directory.path
            ).run()
            try #require(result.exited(0), "\(result.summary)")

            func mode(_ path: String) throws -> Int? {
                (try FileManager.default.attributesOfItem(atPath: directory.file(path))[.posixPermissions]
                    as? NSNumber)?.intValue
            }
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: directory.file("project/keys")).sorted()
                    == Self.files.sorted())
            for file in Self.files {
                #expect(try mode("project/keys/\(file)") == (file.hasSuffix(".key") ? 0o600 : 0o644), "\(file)")
            }
            #expect(try mode("project") == 0o755)
            #expect(try mode("project/keys") == 0o755)
        }
    }

    @Test func forceReplacesTheChain() async throws {
        try await TemporaryDirectory.with { directory in
            let first = try await TipLedgerBinary.run(["testkit", "init", "--out", "keys"], in: directory.path)
            try #require(first.exited(0), "\(first.summary)")
            let before = try Self.contents(of: directory)

            let forced = try await TipLedgerBinary.run(
                ["testkit", "init", "--out", "keys", "--force"], in: directory.path)
            #expect(forced.exited(0), "\(forced.summary)")
            #expect(forced.err.isEmpty)
            let after = try Self.contents(of: directory)
            for file in Self.files { #expect(after[file] != before[file], "\(file) was not replaced") }
            let mode = try FileManager.default.attributesOfItem(atPath: directory.file("keys/leaf.key"))[
                .posixPermissions]
            #expect((mode as? NSNumber)?.intValue == 0o600)
        }
    }
}
