// `parley doctor`: the one CLI command that needs the adapters (each platform's own checks, through
// its SDK). src/ never imports an adapter (.dependency-cruiser.cjs), so this file, which may know
// both, hands the compiled adapters' checks to the compiled CLI.
export async function runDoctor() {
  const [{ runCli }, { defaultIO }, telegram, discord, feishu] = await Promise.all([
    import('../dist/src/cli/program.js'),
    import('../dist/src/cli/context.js'),
    import('../dist/adapters/telegram/doctor.js'),
    import('../dist/adapters/discord/doctor.js'),
    import('../dist/adapters/feishu/doctor.js'),
  ]);
  const channelDoctors = [telegram.telegramDoctor, discord.discordDoctor, feishu.feishuDoctor];
  process.exitCode = await runCli(process.argv.slice(2), defaultIO(), { channelDoctors });
}
