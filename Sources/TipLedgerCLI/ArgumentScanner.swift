// SPDX-License-Identifier: GPL-3.0-or-later

/// Takes options out of a command line, wherever they appear, so global options may come before
/// or after the command (`tipledger --db x verify` and `tipledger verify --db x` are the same).
///
/// Options are `--name value` or `--name=value`; `--` ends the options. What is left after a
/// command took its options must be positional, or it is reported as unknown.
struct ArgumentScanner {
    private(set) var arguments: [String]
    /// Arguments after `--`, never read as options.
    private var literal: [String] = []
    /// The command being parsed, once known: a bad option's hint points to its help.
    var command: String? = nil

    init(_ arguments: some Sequence<String>) {
        var all = Array(arguments)
        if let end = all.firstIndex(of: "--") {
            literal = Array(all[(end + 1)...])
            all.removeSubrange(end...)
        }
        self.arguments = all
    }

    /// Whether any of `names` is present; removes every occurrence.
    mutating func flag(_ names: String...) -> Bool {
        let before = arguments.count
        arguments.removeAll { names.contains($0) }
        return arguments.count != before
    }

    /// Every value given for option `name`, in order; removes them.
    mutating func values(_ name: String) throws -> [String] {
        var found: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == name {
                guard index + 1 < arguments.count else {
                    throw CLIError.usage("\(name) needs a value", command: command)
                }
                found.append(arguments[index + 1])
                arguments.removeSubrange(index...(index + 1))
            } else if argument.hasPrefix(name + "=") {
                found.append(String(argument.dropFirst(name.count + 1)))
                arguments.remove(at: index)
            } else {
                index += 1
            }
        }
        return found
    }

    /// The value of option `name`, or nil; given more than once, it is a usage error (which
    /// one was meant is anybody's guess). Repeatable options read `values`.
    mutating func value(_ name: String) throws -> String? {
        let given = try values(name)
        guard given.count <= 1 else {
            throw CLIError.usage("\(name) is given more than once", command: command)
        }
        return given.first
    }

    /// What a path option names, for the message that refuses an empty one.
    enum PathKind: String {
        case file, directory
    }

    /// The value of option `name`, the path of a `kind`, or nil; an empty path is a usage
    /// error, since the system would resolve it somewhere of its own (an empty keys directory
    /// reads `/leaf.cer`).
    mutating func path(_ name: String, to kind: PathKind) throws -> String? {
        guard let path = try value(name) else { return nil }
        try checkPath(path, option: name, kind: kind)
        return path
    }

    /// Every path given for the repeatable option `name`, in order, none of them empty.
    mutating func paths(_ name: String, to kind: PathKind) throws -> [String] {
        let paths = try values(name)
        for path in paths { try checkPath(path, option: name, kind: kind) }
        return paths
    }

    private func checkPath(_ path: String, option: String, kind: PathKind) throws {
        if path.isEmpty { throw CLIError.usage("\(option) needs a \(kind.rawValue) name", command: command) }
    }

    /// The value of option `name`, whose value may be left out: `--name=value` gives `value`,
    /// a bare `--name` gives `bare` (the next argument is never taken as its value); nil when
    /// absent. Given more than once, it is a usage error.
    mutating func optionalValue(_ name: String, bare: String) throws -> String? {
        var found: [String] = []
        arguments.removeAll { argument in
            if argument == name {
                found.append(bare)
            } else if argument.hasPrefix(name + "=") {
                found.append(String(argument.dropFirst(name.count + 1)))
            } else {
                return false
            }
            return true
        }
        guard found.count <= 1 else {
            throw CLIError.usage("\(name) is given more than once", command: command)
        }
        return found.first
    }

    /// An integer option, checked against `range`.
    mutating func integer(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = try value(name) else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw CLIError.usage(
                "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'",
                command: command)
        }
        return number
    }

    /// The first positional argument, removed; nil when there is none.
    mutating func nextPositional() -> String? {
        if let index = arguments.firstIndex(where: { !$0.hasPrefix("-") || $0 == "-" }) {
            return arguments.remove(at: index)
        }
        return literal.isEmpty ? nil : literal.removeFirst()
    }

    /// Like `nextPositional()`, but never takes the argument after one of `valueOptions` (the
    /// value of an option given before the command, as in `tipledger --db x.sqlite report`).
    mutating func nextPositional(skippingValuesOf valueOptions: Set<String>) -> String? {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if valueOptions.contains(argument) {
                index += 2
            } else if !argument.hasPrefix("-") || argument == "-" {
                return arguments.remove(at: index)
            } else {
                index += 1
            }
        }
        return literal.isEmpty ? nil : literal.removeFirst()
    }

    /// All remaining arguments, which must all be positional.
    mutating func remainingPositionals() throws -> [String] {
        try checkNoOptionsLeft()
        defer {
            arguments = []
            literal = []
        }
        return arguments + literal
    }

    /// Fails when an argument is left over.
    mutating func finish() throws {
        try checkNoOptionsLeft()
        if let extra = (arguments + literal).first {
            throw CLIError.usage("unexpected argument '\(extra)'", command: command)
        }
    }

    private func checkNoOptionsLeft() throws {
        if let unknown = arguments.first(where: { $0.hasPrefix("-") && $0 != "-" }) {
            throw CLIError.usage("unknown option '\(unknown)'", command: command)
        }
    }
}
