import { Page } from '../../shell/Page';
import { EnginesSection } from '../engines/EnginesSection';
import { AboutSection } from './AboutSection';
import { ActivitySection } from './ActivitySection';
import { AccessSection } from './AccessSection';
import { AgentSection } from './AgentSection';
import { ConnectSection } from './ConnectSection';
import { PricesSection } from './PricesSection';
import { RemoteAccessSection } from './RemoteAccessSection';
import { RulesSection } from './RulesSection';
import { SecretsSection } from './SecretsSection';
import { TrackerSection } from './TrackerSection';
import { VaultSection } from './VaultSection';

/** Settings is a plain list of sections; each feature adds its own file here. */
export function SettingsPage() {
  return (
    <Page title="Settings">
      <AboutSection />
      <VaultSection />
      <SecretsSection />
      <AgentSection />
      <EnginesSection />
      <TrackerSection />
      <PricesSection />
      <RulesSection />
      <AccessSection />
      <RemoteAccessSection />
      <ConnectSection />
      <ActivitySection />
    </Page>
  );
}
