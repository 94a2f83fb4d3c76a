package io.railyard.cli;

import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.util.List;
import io.fabric8.kubernetes.client.KubernetesClientException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The railyard command. */
@Command(
        name = "railyard",
        mixinStandardHelpOptions = true,
        versionProvider = Railyard.Version.class,
        description = "Distributed GPU training on Kubernetes over RDMA, with the fast path verified.")
public final class Railyard {
    /** Exit code for usage errors: a bad flag, a root that does not exist. */
    public static final int USAGE = 2;
    private static final List<Class<?>> SUBCOMMANDS = List.of(DoctorCommand.class, AnalyzeCommand.class, RenderCommand.class,
            AgentCommand.class, ExporterCommand.class, FabricCommand.class, PreflightCommand.class, SubmitCommand.class, StatusCommand.class, OperatorCommand.class,
            AwaitRankCommand.class, RestartWatchCommand.class, PreflightLinkCommand.class, SpeedupCommand.class, SpeedupLinkCommand.class, NcclWatchCommand.class, NcclSpeedCommand.class, TopoCommand.class, UpCommand.class, DownCommand.class, CommandLine.HelpCommand.class);

    public static void main(String[] args) {
        PrintWriter out = new PrintWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), true);
        PrintWriter err = new PrintWriter(new OutputStreamWriter(System.err, StandardCharsets.UTF_8), true);
        int code = run(out, err, args);
        if (AnalyzeCommand.onlyFiles(args)) {
            // System.exit first logs the exit through System.Logger, whose set-up searches the class path for a logger
            // (about 15 ms); analyze leaves no shutdown hook to run
            Runtime.getRuntime().halt(code);
        }
        System.exit(code);
    }

    /** Runs the command line and returns its exit code; errors a user can cause print one line, never a stack trace. */
    public static int run(PrintWriter out, PrintWriter err, String... args) {
        if (AnalyzeCommand.onlyFiles(args)) {
            // the way a large log is read: picocli's model of the commands (their annotations, read by reflection) would
            // be a tenth of a 1 GB log's time (bench/analyze-vs-grep.sh); any option goes through picocli below
            try {
                return AnalyzeCommand.analyze(List.of(args).subList(1, args.length), AnalyzeCommand.Output.text, null, out, err);
            } catch (Exception e) {
                return exitCode(e, "analyze", err);
            }
        }
        return run(out, err, CommandLine.defaultFactory(), args);
    }

    /** The same, with the commands made by {@code factory}: tests hand a command the pieces a cluster would give it. */
    static int run(PrintWriter out, PrintWriter err, CommandLine.IFactory factory, String... args) {
        CommandLine commandLine = commandLine(factory, args).setOut(out).setErr(err);
        if (args.length == 0) { // as kubectl does: the commands, not a complaint
            commandLine.usage(out);
            out.flush();
            return 0;
        }
        commandLine.setParameterExceptionHandler((e, ignored) -> {
            CommandLine command = e.getCommandLine();
            command.getErr().println(command.getCommandName() + ": " + problem(e) + " (see " + qualifiedName(command) + " --help)");
            return USAGE;
        });
        commandLine.setExecutionExceptionHandler((e, command, ignored) -> exitCode(e, command.getCommandName(), command.getErr()));
        if (!args[0].startsWith("-") && !commandLine.getSubcommands().containsKey(args[0])) {
            return commandLine.execute(args[0]); // an unknown command, even with --help after it: said as one, not the usage
        }
        return commandLine.execute(args);
    }

    /** Says what went wrong in one line and returns the exit code for it. */
    private static int exitCode(Exception e, String command, PrintWriter err) {
        if (e instanceof UsageException usage) {
            err.println(command + ": " + usage.getMessage());
            return USAGE;
        }
        if (e instanceof KubeClients.ClusterException cluster) {
            err.println(command + ": " + cluster.getMessage());
            return 1;
        }
        if (e instanceof KubernetesClientException api) {
            err.println(command + ": the Kubernetes API failed: " + KubeClients.cause(api));
            return 1;
        }
        StringBuilder why = new StringBuilder(e.toString()); // a framework's "Error starting operator" says why only in its causes
        for (Throwable cause = e.getCause(), seen = e; cause != null && cause != seen; seen = cause, cause = cause.getCause()) {
            why.append("; caused by ").append(cause);
        }
        err.println(command + ": internal error: " + why.toString().replaceAll("\\s*\\R\\s*", " "));
        return 3;
    }

    /**
     * The command line for these arguments. picocli builds the model of each subcommand by reflection, which costs more
     * than most commands take to run: when the first argument names a subcommand, only that one is built.
     */
    static CommandLine commandLine(String... args) {
        return commandLine(CommandLine.defaultFactory(), args);
    }

    private static CommandLine commandLine(CommandLine.IFactory factory, String... args) {
        CommandLine commandLine = new CommandLine(new Railyard(), factory);
        String first = args.length > 0 ? args[0] : "";
        List<Class<?>> named = SUBCOMMANDS.stream()
                .filter(command -> command != CommandLine.HelpCommand.class && command.getAnnotation(Command.class).name().equals(first))
                .toList();
        (named.isEmpty() ? SUBCOMMANDS : named).forEach(commandLine::addSubcommand);
        return commandLine;
    }

    /** An unknown command or option names the nearest one there is. */
    private static String problem(CommandLine.ParameterException e) {
        if (e instanceof CommandLine.UnmatchedArgumentException unmatched && !unmatched.getUnmatched().isEmpty()) {
            String first = unmatched.getUnmatched().getFirst();
            List<String> near = unmatched.getSuggestions();
            String what = e.getCommandLine().getParent() == null && !first.startsWith("-") ? "unknown command '" + first + "'"
                    : "unknown " + (first.startsWith("-") ? "option" : "argument") + " '" + first + "'";
            return near.isEmpty() ? what : what + ": did you mean " + near.getFirst() + "?";
        }
        return e.getMessage();
    }

    private static String qualifiedName(CommandLine command) {
        return command.getParent() == null ? command.getCommandName()
                : qualifiedName(command.getParent()) + " " + command.getCommandName();
    }

    /** A mistake in the command line the user can fix; its message says what and how. */
    static final class UsageException extends RuntimeException {
        UsageException(String message) {
            super(message);
        }

        /** A file named on the command line that cannot be read, with why in a person's words. */
        static UsageException unreadable(String what, IOException e) {
            String why = switch (e) {
                case NoSuchFileException ignored -> "no such file";
                case AccessDeniedException ignored -> "permission denied";
                case MalformedInputException ignored -> "not UTF-8 text (a binary file?)";
                case FileSystemException f when f.getReason() != null -> f.getReason();
                case IOException d when "Is a directory".equals(d.getMessage()) -> "a directory, not a file";
                default -> "cannot be read: " + e.getMessage();
            };
            return new UsageException(what + ": " + why);
        }
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = Railyard.class.getPackage().getImplementationVersion();
            return new String[] {"railyard " + (version == null ? "development build" : version)};
        }
    }
}
