// The frame around every page: navigation on the left, the tenant and the user at the top, the
// keyboard shortcuts (`?` lists them). Narrow windows fold the navigation into a menu button.
import { useState, type ReactNode } from 'react';
import { NavLink, useLocation, useNavigate } from 'react-router';
import type { Permission } from '../api/types';
import { Dialog } from '../components/Dialog';
import { Kbd } from '../components/ui';
import { MenuIcon } from '../components/icons';
import { globalShortcuts, useHotkeys } from '../lib/hotkeys';
import { humanize } from '../lib/format';
import { useSession } from './session';

interface NavItem {
  to: string;
  label: string;
  permission?: Permission;
  end?: boolean;
}

const work: NavItem[] = [
  { to: '/', label: 'Overview', end: true },
  { to: '/cases', label: 'Cases', permission: 'cases:read' },
  { to: '/observations', label: 'Observations', permission: 'observations:read' },
  { to: '/devices', label: 'Devices', permission: 'devices:read' },
  { to: '/telemetry', label: 'Telemetry', permission: 'telemetry:read' },
  { to: '/rules', label: 'Rules', permission: 'observations:read' },
  { to: '/coverage', label: 'ATT&CK coverage', permission: 'observations:read' },
];

const settings: NavItem[] = [
  { to: '/settings/integrations/api', label: 'API Configuration' },
  { to: '/settings/collector', label: 'Collector' },
  { to: '/settings/case-work', label: 'Case work', permission: 'cases:read' },
  { to: '/settings/ai', label: 'AI summaries' },
  { to: '/settings/users', label: 'Users', permission: 'users:read' },
  { to: '/settings/retention', label: 'Retention', permission: 'retention:read' },
  { to: '/settings/security', label: 'Security' },
  { to: '/settings/sso', label: 'Single sign-on', permission: 'sso:read' },
  { to: '/settings/webhooks', label: 'Webhooks', permission: 'webhooks:read' },
];

const operatorItems: NavItem[] = [
  { to: '/operator/tenants', label: 'Tenants' },
  { to: '/operator/reviews', label: 'Observation-write reviews' },
  { to: '/operator/retention', label: 'Retention' },
];

function NavSection({ title, items, onNavigate }: { title?: string; items: NavItem[]; onNavigate: () => void }) {
  const { can } = useSession();
  const shown = items.filter((item) => !item.permission || can(item.permission));
  if (shown.length === 0) return null;
  return (
    <div className="nav-section">
      {title && <div className="nav-heading">{title}</div>}
      {shown.map((item) => (
        <NavLink key={item.to} to={item.to} end={item.end ?? false} className="nav-link" onClick={onNavigate}>
          {item.label}
        </NavLink>
      ))}
    </div>
  );
}

function TenantSwitcher() {
  const { me, tenant, tenants, switchTenant } = useSession();
  const navigate = useNavigate();
  if (!me.operator) {
    return tenant ? (
      <div className="tenant" title={`Tenant code name: ${tenant.code_name}`}>
        <span className="tenant-name">{tenant.name}</span>
        <span className="tenant-code">{tenant.code_name}</span>
      </div>
    ) : null;
  }
  if (tenants.length === 0) return <div className="tenant muted">No tenants yet</div>;
  return (
    <label className="tenant tenant-switch">
      <span className="visually-hidden">Tenant</span>
      <select
        aria-label="Tenant"
        value={tenant?.code_name ?? ''}
        onChange={(event) => {
          switchTenant(event.target.value);
          void navigate('/');
        }}
      >
        {tenants.map((t) => (
          <option key={t.code_name} value={t.code_name}>
            {t.name} ({t.code_name})
          </option>
        ))}
      </select>
    </label>
  );
}

function UserMenu() {
  const { me, signOut } = useSession();
  return (
    <details className="user-menu">
      {/* The name says what the control is and keeps the visible name in it (WCAG 2.5.3). */}
      <summary aria-label={`${me.label}: user menu`}>
        {/* The initial is drawn by CSS: it is decoration, not part of the control's visible name. */}
        <span className="avatar" aria-hidden="true" data-initial={me.label.charAt(0).toUpperCase()} />
        <span className="user-label">{me.label}</span>
      </summary>
      <div className="user-menu-body">
        <div className="user-menu-who">
          <strong>{me.label}</strong>
          <span className="muted">{me.operator ? 'Platform operator' : humanize(me.role ?? me.kind)}</span>
        </div>
        <a href="/docs/" target="_blank" rel="noreferrer">
          API reference
        </a>
        <button type="button" onClick={() => void signOut()}>
          Sign out
        </button>
      </div>
    </details>
  );
}

export function Layout({ children }: { children: ReactNode }) {
  const { me } = useSession();
  const navigate = useNavigate();
  const location = useLocation();
  const [help, setHelp] = useState(false);
  const [menuOpen, setMenuOpen] = useState(false);

  useHotkeys({
    'g o': () => void navigate('/'),
    'g c': () => void navigate('/cases'),
    'g b': () => void navigate('/observations'),
    'g d': () => void navigate('/devices'),
    'g t': () => void navigate('/telemetry'),
    'g s': () => void navigate('/settings/integrations/api'),
    '?': () => setHelp(true),
    '/': () => document.querySelector<HTMLInputElement>('[data-search]')?.focus(),
  });

  return (
    <div className={`shell ${menuOpen ? 'shell-menu-open' : ''}`}>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <aside className="sidebar" aria-label="Navigation">
        <a
          className="brand"
          href="/"
          onClick={(event) => {
            event.preventDefault();
            void navigate('/');
          }}
        >
          <img src="/favicon.svg" alt="" width={24} height={24} />
          <span>Sightline</span>
        </a>
        <nav>
          <NavSection items={work} onNavigate={() => setMenuOpen(false)} />
          <NavSection title="Settings" items={settings} onNavigate={() => setMenuOpen(false)} />
          {me.operator && <NavSection title="Operator" items={operatorItems} onNavigate={() => setMenuOpen(false)} />}
        </nav>
        <button type="button" className="shortcut-hint" onClick={() => setHelp(true)}>
          <Kbd>?</Kbd> Keyboard shortcuts
        </button>
      </aside>
      <div className="main-column">
        <header className="topbar">
          <button
            type="button"
            className="menu-button"
            aria-label="Menu"
            aria-expanded={menuOpen}
            onClick={() => setMenuOpen((open) => !open)}
          >
            <MenuIcon size={20} />
          </button>
          <TenantSwitcher />
          <div className="topbar-spacer" />
          <UserMenu />
        </header>
        <main id="main" tabIndex={-1} className="content" key={location.pathname.split('/')[1]}>
          {children}
        </main>
      </div>
      {help && (
        <Dialog title="Keyboard shortcuts" onClose={() => setHelp(false)}>
          <table className="shortcuts">
            <tbody>
              {globalShortcuts.map(([keys, what]) => (
                <tr key={keys}>
                  <td>
                    {keys.split(' ').map((key, i) => (
                      <Kbd key={i}>{key}</Kbd>
                    ))}
                  </td>
                  <td>{what}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Dialog>
      )}
    </div>
  );
}
