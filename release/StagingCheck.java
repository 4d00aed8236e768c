import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.module.FindException;
import java.lang.module.ModuleFinder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;

import javax.xml.parsers.DocumentBuilderFactory;

import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * What Maven Central checks of an upload, and what our jars promise beside (docs/RELEASING.md), checked on a staged
 * folder (release/staging-check runs it, with JDK 17's single-file launcher):
 * {@code java release/StagingCheck.java STAGING VERSION MODULE...}.
 *
 * <p>
 * Every module listed, and nothing else of {@code dev.ratelimit}, is staged at VERSION; each POM names its name,
 * description, URL, licence, developers and SCM, no parent, no SNAPSHOT and no property left unresolved (no "${"
 * anywhere); each jar module has its jar (with the licence as {@code META-INF/LICENSE} and an
 * {@code Automatic-Module-Name} that is its root package), sources jar (with the sources and the licence) and javadoc
 * jar (with its index); every file has its checksums, and either every file its signature or none (then it says that
 * signing was skipped); the BOM manages the other published modules at VERSION, written out, and nothing else.
 * Prints each failure and exits 1 when there is one.
 */
final class StagingCheck {

	private static final List<String> failures = new ArrayList<>();

	public static void main(String[] args) throws Exception {
		Path group = Path.of(args[0], "dev", "ratelimit");
		String version = args[1];
		List<String> modules = List.of(args).subList(2, args.length);
		Set<String> staged = new TreeSet<>();
		try (Stream<Path> dirs = Files.list(group)) {
			dirs.filter(Files::isDirectory).forEach((dir) -> staged.add(dir.getFileName().toString()));
		}
		if (!staged.equals(new TreeSet<>(modules))) {
			fail("staged " + staged + ", published are " + new TreeSet<>(modules)
					+ " (release/published; the test-only, benchmark, sample and drop-in modules and the parent are not)");
		}
		int signed = 0;
		int files = 0;
		for (String module : modules) {
			Path dir = group.resolve(module).resolve(version);
			Path pom = dir.resolve(module + "-" + version + ".pom");
			if (!Files.isRegularFile(pom)) {
				fail(module + ": no " + pom.getFileName() + " at " + version);
				continue;
			}
			Element project = read(pom);
			checkPom(module, version, project, Files.readString(pom));
			List<Path> artifacts = new ArrayList<>(List.of(pom));
			if (text(project, "packaging").isEmpty() || text(project, "packaging").equals("jar")) {
				Path jar = jar(module, dir.resolve(module + "-" + version + ".jar"), ".class");
				checkModuleName(module, jar);
				artifacts.add(jar);
				artifacts.add(jar(module, dir.resolve(module + "-" + version + "-sources.jar"), ".java"));
				artifacts.add(jar(module, dir.resolve(module + "-" + version + "-javadoc.jar"), "index.html"));
			}
			else if (module.endsWith("-bom")) {
				checkBom(module, version, project, modules);
			}
			for (Path artifact : artifacts) {
				files++;
				for (String checksum : List.of(".md5", ".sha1")) {
					if (!Files.isRegularFile(Path.of(artifact + checksum))) {
						fail(module + ": no " + artifact.getFileName() + checksum);
					}
				}
				signed += Files.isRegularFile(Path.of(artifact + ".asc")) ? 1 : 0;
			}
		}
		if (signed != 0 && signed != files) {
			fail(signed + " of " + files + " files signed: all or none");
		}
		if (!failures.isEmpty()) {
			failures.forEach((failure) -> System.err.println("staging-check: " + failure));
			System.exit(1);
		}
		System.out.println("staging-check: " + modules.size() + " modules at " + version + ", " + files
				+ " files, POMs complete, sources and javadoc present, jars with their licence and module name"
				+ ((signed == 0) ? "; NOT SIGNED: no -Dgpg.keyname given, signing skipped (Central requires"
						+ " signatures: docs/RELEASING.md)" : "; all signed"));
	}

	private static void checkPom(String module, String version, Element project, String xml) {
		if (!text(project, "version").equals(version)) {
			fail(module + ": POM version '" + text(project, "version") + "', not " + version);
		}
		if (child(project, "parent") != null) {
			fail(module + ": the POM names a parent (the release flattens every published POM)");
		}
		for (String path : List.of("name", "description", "url", "licenses/license/name", "licenses/license/url",
				"developers/developer/name", "developers/developer/email", "scm/connection",
				"scm/developerConnection", "scm/url")) {
			if (text(project, path).isBlank()) {
				fail(module + ": POM without " + path + " (Maven Central requires it)");
			}
		}
		if (xml.contains("SNAPSHOT")) {
			fail(module + ": the POM names a SNAPSHOT");
		}
		if (xml.contains("${")) {
			fail(module + ": the POM leaves a property unresolved: "
					+ xml.substring(xml.indexOf("${")).lines().findFirst().orElseThrow());
		}
	}

	private static void checkBom(String module, String version, Element project, List<String> modules) {
		Element managed = child(child(project, "dependencyManagement"), "dependencies");
		Set<String> entries = new TreeSet<>();
		for (Node node = (managed != null) ? managed.getFirstChild() : null; node != null; node = node.getNextSibling()) {
			if (node instanceof Element dependency) {
				String coordinates = text(dependency, "groupId") + ":" + text(dependency, "artifactId");
				if (!text(dependency, "groupId").equals("dev.ratelimit")) {
					fail(module + ": manages " + coordinates + ": a BOM of ratelimit manages dev.ratelimit only");
				}
				if (!text(dependency, "version").equals(version)) {
					fail(module + ": manages " + coordinates + " at " + text(dependency, "version"));
				}
				entries.add(text(dependency, "artifactId"));
			}
		}
		Set<String> expected = new TreeSet<>(modules);
		expected.remove(module);
		if (!entries.equals(expected)) {
			fail(module + ": manages " + entries + ", not the published modules " + expected);
		}
	}

	/** The jar, checked to hold an entry ending in entrySuffix and, but for the javadoc, the licence. */
	private static Path jar(String module, Path jar, String entrySuffix) {
		if (!Files.isRegularFile(jar)) {
			fail(module + ": no " + jar.getFileName());
			return jar;
		}
		try (JarFile zip = new JarFile(jar.toFile())) {
			if (zip.stream().noneMatch((entry) -> entry.getName().endsWith(entrySuffix))) {
				fail(module + ": " + jar.getFileName() + " holds no " + entrySuffix);
			}
			ZipEntry license = zip.getEntry("META-INF/LICENSE");
			if (!jar.getFileName().toString().endsWith("-javadoc.jar") && (license == null
					|| !new String(zip.getInputStream(license).readAllBytes(), StandardCharsets.UTF_8)
						.contains("Apache License"))) {
				fail(module + ": " + jar.getFileName() + " holds no META-INF/LICENSE with the Apache License (the POM's"
						+ " licence)");
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return jar;
	}

	/**
	 * The jar's Automatic-Module-Name, its name on the module path: one the module system takes (ModuleFinder refuses
	 * an illegal name), and the root package of every class in the jar, as the Java convention has it.
	 */
	private static void checkModuleName(String module, Path jar) {
		if (!Files.isRegularFile(jar)) {
			return;
		}
		try (JarFile zip = new JarFile(jar.toFile())) {
			String name = (zip.getManifest() != null)
					? zip.getManifest().getMainAttributes().getValue("Automatic-Module-Name") : null;
			if (name == null) {
				fail(module + ": " + jar.getFileName() + " has no Automatic-Module-Name in its manifest");
				return;
			}
			ModuleFinder.of(jar).findAll();
			String root = zip.stream()
				.map(ZipEntry::getName)
				.filter((entry) -> entry.endsWith(".class") && !entry.startsWith("META-INF/"))
				.map((entry) -> entry.contains("/") ? entry.substring(0, entry.lastIndexOf('/')).replace('/', '.') : "")
				.reduce(StagingCheck::commonPackage)
				.orElse("");
			if (!name.equals(root)) {
				fail(module + ": " + jar.getFileName() + " has the Automatic-Module-Name " + name + ", not its root package '"
						+ root + "' (the Java convention)");
			}
		}
		catch (FindException ex) {
			fail(module + ": " + jar.getFileName() + " is no module: " + ex.getMessage());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** The longest package that is or holds both (dev.ratelimit.spring of dev.ratelimit.spring.web and ...aop). */
	private static String commonPackage(String one, String other) {
		String[] a = one.split("\\.");
		String[] b = other.split("\\.");
		int common = 0;
		while (common < Math.min(a.length, b.length) && a[common].equals(b[common])) {
			common++;
		}
		return String.join(".", List.of(a).subList(0, common));
	}

	private static Element read(Path pom) throws Exception {
		return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile()).getDocumentElement();
	}

	/** The trimmed text at a slash-separated path of first children, or "" when one is missing. */
	private static String text(Element element, String path) {
		Element current = element;
		for (String name : path.split("/")) {
			current = child(current, name);
		}
		return (current != null) ? current.getTextContent().trim() : "";
	}

	private static Element child(Element parent, String name) {
		for (Node node = (parent != null) ? parent.getFirstChild() : null; node != null; node = node.getNextSibling()) {
			if (node instanceof Element element && element.getTagName().equals(name)) {
				return element;
			}
		}
		return null;
	}

	private static void fail(String failure) {
		failures.add(failure);
	}

}
